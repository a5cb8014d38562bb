// phobos view: draws the model embedded in the page (python/phobos/view/model.py builds it).
// Everything drawn is in the model; this script only lays it out and steps through it.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("phobos-view-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function sv(tag, attrs, parent, text) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    if (text !== undefined && text !== null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function setAttrs(e, attrs) {
    for (var k in attrs || {}) {
      if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    }
  }
  function hatch() {  // one pattern for the page: the masked elements' hatching
    var svgEl = sv("svg", { width: 0, height: 0, style: "position:absolute", "aria-hidden": "true" }, document.body);
    var defs = sv("defs", {}, svgEl);
    var p = sv("pattern", { id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse",
                            patternTransform: "rotate(45)" }, defs);
    sv("rect", { width: 6, height: 6, fill: "rgba(194,65,12,.10)" }, p);
    sv("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#c2410c", "stroke-width": 2 }, p);
  }
  function rows2(shape) { return shape.length >= 2 ? [shape[shape.length - 2], shape[shape.length - 1]] : [1, shape[0]]; }
  function rc(v) { return v.length >= 2 ? [v[v.length - 2], v[v.length - 1]] : [0, v[0]]; }
  function short(name) { return name.split(" of the ")[0]; }

  hatch();

  // ------------------------------------------------------------------ header
  var top = document.getElementById("top");
  el("h1", {}, top, "phobos view: " + data.kernel);
  var sizes = Object.keys(data.sizes).map(function (k) { return k + " = " + data.sizes[k]; }).join(", ");
  var binds = Object.keys(data.bindings).map(function (k) { return k + " = " + data.bindings[k]; }).join(", ");
  el("p", { "class": "meta" }, top, data.file + " · " + data.chip + " · key " + (data.key || "(generic)") +
     " · sizes " + sizes + (binds ? " · constants " + binds : "") + " · picked CTA (" + data.cta.join(", ") + ")");
  var panels = [];
  if (data.variants.length > 1) {
    var both = el("div", { "class": "controls both" }, top);
    el("span", {}, both, "both variants:");
    var bprev = el("button", { "class": "both-prev", type: "button" }, both, "◀ step");
    var bnext = el("button", { "class": "both-next", type: "button" }, both, "step ▶");
    bprev.addEventListener("click", function () { panels.forEach(function (p) { p.go(p.step - 1); }); });
    bnext.addEventListener("click", function () { panels.forEach(function (p) { p.go(p.step + 1); }); });
  }
  (data.notes || []).forEach(function (n) { el("p", { "class": "notes" }, top, n); });

  // ------------------------------------------------------------------ one variant
  function Panel(v, root) {
    this.v = v;
    this.root = el("section", { "class": "variant", "data-variant": v.id }, root);
    el("h2", {}, this.root, v.title);
    el("p", { "class": "summary" }, this.root, v.summary);
    if (v.refused) el("p", { "class": "refused" }, this.root, "the launch's checks refuse these sizes: " + v.refused);
    (v.notes || []).forEach(function (n) { el("p", { "class": "summary note" }, this.root, "note: " + n); }, this);
    this.ctaIndex = v.picked || 0;
    this.step = 0;
    this.buildGrid();
    this.buildControls();
    this.readout = el("div", { "class": "readout", "aria-live": "polite" }, this.root);
    el("h3", {}, this.root, "global memory");
    this.tensorRow = el("div", { "class": "row tensors" }, this.root);
    el("h3", {}, this.root, "shared memory");
    this.buildRuler();
    el("h3", {}, this.root, "barriers");
    this.buildBarriers();
    el("h3", {}, this.root, "threads and lanes");
    this.threadsTitle = el("p", { "class": "threads-title" }, this.root);
    this.threadsBox = el("div", { "class": "threads-view" }, this.root);
    this.hover = el("p", { "class": "hover" }, this.root);
    var legend = el("p", { "class": "legend" }, this.root);
    legend.innerHTML = "colour: the warp of the element's thread" +
      "<span style='background:#fff;border:2px solid #111'></span>warp 0's lanes in one request" +
      "<span style='border:2px solid #1f6feb'></span>a 128-byte line" +
      "<span style='border:2px dashed #d1242f'></span>an extra line" +
      "<span style='background:rgba(194,65,12,.25)'></span>masked elements";
    el("h3", {}, this.root, "accesses (the compiler's report)");
    this.buildAccesses();
    el("h3", {}, this.root, "source");
    this.buildSource();
    this.pick(this.ctaIndex);
  }

  Panel.prototype.steps = function () {
    var c = this.v.ctas[this.ctaIndex];
    return c ? c.steps : [];
  };

  Panel.prototype.buildGrid = function () {
    var v = this.v, g = v.grid, self = this;
    var gx = g[0], gy = g[1];
    var cell = Math.max(4, Math.min(22, Math.floor(220 / Math.max(gx, gy))));
    var drawn = gx <= 64 && gy <= 64;
    var w = (drawn ? gx : 1) * cell + 40, h = (drawn ? gy : 1) * cell + 22;
    var wrap = el("div", { "class": "grid-wrap" }, this.root);
    el("h3", {}, wrap, "CTA grid " + g.join(" x ") + (g[2] > 1 ? " (z = " + data.cta[2] + " shown)" : ""));
    var s = sv("svg", { "class": "grid", width: w, height: h }, wrap);
    sv("text", { x: 0, y: 10, "class": "label" }, s, "x →  y ↓");
    this.ctaRects = [];
    var recorded = {};
    v.ctas.forEach(function (c, i) { recorded[c.cta.join(",")] = i; });
    if (!drawn) {
      sv("rect", { x: 0, y: 14, width: cell, height: cell, "class": "cta picked", "data-cta": data.cta.join(",") }, s);
      return;
    }
    for (var y = 0; y < gy; y++) {
      for (var x = 0; x < gx; x++) {
        var key = [x, y, data.cta[2]].join(",");
        var r = sv("rect", { x: x * cell, y: 14 + y * cell, width: cell - 1, height: cell - 1,
                             "class": "cta" + (key in recorded ? " recorded" : ""), "data-cta": key }, s);
        sv("title", {}, r, "CTA (" + key.replace(/,/g, ", ") + ")" + (key in recorded ? "" : ": not recorded"));
        if (key in recorded) {
          (function (i) { r.addEventListener("click", function () { self.pick(i); }); })(recorded[key]);
          this.ctaRects.push([recorded[key], r]);
        }
      }
    }
  };

  Panel.prototype.buildControls = function () {
    var self = this;
    var c = el("div", { "class": "controls" }, this.root);
    this.ctaLabel = el("span", { "class": "cta-label" }, c);
    this.bFirst = el("button", { "class": "first", type: "button", title: "first step" }, c, "first");
    this.bPrev = el("button", { "class": "prev", type: "button", title: "previous step (←)" }, c, "◀");
    this.slider = el("input", { "class": "slider", type: "range", min: 0, max: 0, value: 0 }, c);
    this.bNext = el("button", { "class": "next", type: "button", title: "next step (→)" }, c, "▶");
    this.bLast = el("button", { "class": "last", type: "button", title: "last step" }, c, "last");
    this.count = el("span", { "class": "count" }, c);
    this.bFirst.addEventListener("click", function () { self.go(0); });
    this.bPrev.addEventListener("click", function () { self.go(self.step - 1); });
    this.bNext.addEventListener("click", function () { self.go(self.step + 1); });
    this.bLast.addEventListener("click", function () { self.go(self.steps().length - 1); });
    this.slider.addEventListener("input", function () { self.go(parseInt(self.slider.value, 10)); });
    this.root.tabIndex = 0;
    this.root.addEventListener("keydown", function (e) {
      if (e.key === "ArrowRight") { self.go(self.step + 1); e.preventDefault(); }
      if (e.key === "ArrowLeft") { self.go(self.step - 1); e.preventDefault(); }
    });
  };

  Panel.prototype.buildRuler = function () {
    var sh = this.v.shared;
    this.stageRects = [];
    if (!sh.bytes) {
      el("p", { "class": "ruler-none" }, this.root, "no shared memory planned for this kernel");
      return;
    }
    var W = 620, scale = W / sh.bytes, ROW = 40;
    // Buffers that share bytes (the planner reuses them when their live ranges do not meet) or
    // whose labels would collide go on rows of their own, at the same byte offsets.
    var rowEnds = [], placed = sh.buffers.map(function (b) {
      var label = short(b.name) + " " + b.where.split(":").slice(-2).join(":") + " @" + b.offset +
        " · " + b.bytes + " B" +
        (b.stages > 1 ? " · " + b.stages + " stages" : "") + (b.bank_conflicts ? " · conflicts" : "");
      var x0 = b.offset * scale, x1 = Math.max((b.offset + b.bytes) * scale, x0 + label.length * 6.2);
      var row = 0;
      while (row < rowEnds.length && rowEnds[row] > x0) row++;
      rowEnds[row] = x1 + 4;
      return { row: row, label: label };
    });
    var H = rowEnds.length * ROW;
    var right = Math.max.apply(null, rowEnds.concat([W + 60]));
    var s = sv("svg", { "class": "ruler", width: right, height: H + 30, "data-bytes": sh.bytes }, this.root);
    var tick = 256;
    while (sh.bytes / tick > 8) tick *= 2;
    for (var t = 0; t <= sh.bytes; t += tick) {
      sv("line", { x1: t * scale + 0.5, y1: H, x2: t * scale + 0.5, y2: H + 6, "class": "tick" }, s);
      sv("text", { x: t * scale, y: H + 18, "class": "label" }, s, String(t));
    }
    sv("text", { x: W + 4, y: H - 14, "class": "label" }, s, sh.bytes + " B");
    var self = this;
    sh.buffers.forEach(function (b, i) {
      var y = placed[i].row * ROW;
      var g = sv("g", { "class": "smem-buffer", "data-index": i, "data-name": b.name, "data-offset": b.offset,
                        "data-bytes": b.bytes, "data-stages": b.stages, "data-where": b.where,
                        "data-row": placed[i].row }, s);
      sv("title", {}, g, b.name + ": offset " + b.offset + ", " + b.bytes + " bytes, " + b.stages + " stage(s) of " +
         b.shape.join(" x ") + " (row length " + b.ld + ", padding " + b.padding + "); reads " + b.read_wavefronts +
         " wavefronts (ideal " + b.ideal_read_wavefronts + ")" + (b.bank_conflicts ? ": bank conflicts" : ""));
      var rects = [];
      for (var k = 0; k < b.stages; k++) {
        var x = (b.offset + k * b.stage_bytes) * scale;
        rects.push(sv("rect", { x: x, y: y + 13, width: Math.max(1, b.stage_bytes * scale - 1), height: 24,
                                "class": "stage", "data-stage": k }, g));
      }
      sv("text", { x: b.offset * scale + 2, y: y + 10, "class": "label" }, g, placed[i].label);
      self.stageRects.push(rects);
    });
  };

  Panel.prototype.buildBarriers = function () {
    var ul = el("ul", { "class": "barriers" }, this.root);
    this.barrierItems = this.v.barriers.map(function (b, i) {
      var li = el("li", { "class": "barrier " + (b.kept ? "kept" : "elided"), "data-index": i, "data-at": b.at }, ul);
      el("span", { "class": "verdict" }, li, b.kept ? "kept" : "elided");
      el("span", {}, li, " before " + b.at + ": " + b.reason);
      return li;
    });
    if (!this.v.barriers.length) el("li", { "class": "none" }, ul, "no barriers: the kernel has no shared memory");
  };

  Panel.prototype.buildAccesses = function () {
    var t = el("table", { "class": "accesses" }, this.root);
    var head = el("tr", {}, el("thead", {}, t));
    ["at", "access", "vector", "mask", "lines (ideal)"].forEach(function (h) { el("th", {}, head, h); });
    var body = el("tbody", {}, t);
    this.accessRows = this.v.accesses.map(function (a) {
      var tr = el("tr", { "data-access": a.index, "data-width": a.vector_width, "data-mask": a.mask ? a.mask.state : "" },
                  body);
      el("td", {}, tr, a.line + ":" + a.col);
      el("td", {}, tr, a.kind + " " + a.tensor + " [" + a.tile.join("x") + "]");
      el("td", { "class": a.narrow ? "narrow" : "" }, tr, a.vector);
      el("td", {}, tr, a.mask ? a.mask.state : "");
      var r = a.request;
      el("td", {}, tr, r ? r.touched + " (" + r.ideal + ")" : "");
      return tr;
    });
  };

  Panel.prototype.buildSource = function () {
    var pre = el("pre", { "class": "source" }, this.root);
    var cut = this.v.id === "dropped" ? data.dropped : null;
    this.lines = data.source.map(function (text, i) {
      var span = el("span", { "class": "line", "data-line": i + 1 }, pre);
      el("span", { "class": "no" }, span, String(i + 1));
      if (cut && i + 1 >= cut.start[0] && i + 1 <= cut.end[0]) {
        var a = i + 1 === cut.start[0] ? cut.start[1] - 1 : 0;
        var b = i + 1 === cut.end[0] ? cut.end[1] - 1 : text.length;
        span.appendChild(document.createTextNode(text.slice(0, a)));
        el("del", {}, span, text.slice(a, b));
        span.appendChild(document.createTextNode(text.slice(b)));
      } else {
        span.appendChild(document.createTextNode(text));
      }
      return span;
    });
  };

  // ------------------------------------------------------------------ stepping
  Panel.prototype.pick = function (i) {
    this.ctaIndex = i;
    var c = this.v.ctas[i];
    this.ctaRects.forEach(function (p) { p[1].classList.toggle("picked", p[0] === i); });
    this.ctaLabel.textContent = c ? "CTA (" + c.cta.join(", ") + ")" : "no CTA recorded";
    this.root.setAttribute("data-cta", c ? c.cta.join(",") : "");
    this.buildTensors();
    this.go(0);
  };

  Panel.prototype.buildTensors = function () {
    // Each tensor with every box the CTA touches in it (faint) and the current one.
    var self = this, steps = this.steps();
    this.tensorRow.textContent = "";
    this.boxes = {};
    this.v.tensors.forEach(function (t) {
      var shape = rows2(t.shape), R = shape[0], C = shape[1];
      var hiR = R, hiC = C, loR = 0, loC = 0;
      steps.forEach(function (s) {
        if (!s.box || s.box.tensor !== t.name) return;
        var st = rc(s.box.start), ex = rc(s.box.extent);
        loR = Math.min(loR, st[0]); loC = Math.min(loC, st[1]);
        hiR = Math.max(hiR, st[0] + ex[0]); hiC = Math.max(hiC, st[1] + ex[1]);
      });
      var spanR = hiR - loR, spanC = hiC - loC;
      // one scale where the shape allows; a thin side is stretched to stay visible (the label gives the shape)
      var scale = Math.min(200 / Math.max(1, spanC), 160 / Math.max(1, spanR), 24);
      // a thin side gets at least 64 pixels: 36 drew tall tensors a few pixels wide
      var sx = Math.min(24, Math.max(scale, 64 / Math.max(1, spanC)));
      var sy = Math.min(24, Math.max(scale, 64 / Math.max(1, spanR)));
      if (t.shape.length === 1) sy = 14;
      var w = spanC * sx, h = spanR * sy;
      var wrap = el("div", { "class": "tensor-wrap" }, self.tensorRow);
      var label = t.name + " [" + t.shape.join(" x ") + "] " + t.dtype;
      var s = sv("svg", { "class": "tensor", "data-tensor": t.name, width: Math.max(w + 2, label.length * 6.2),
                          height: h + 18,
                          "data-shape": t.shape.join(",") }, wrap);
      sv("text", { x: 0, y: 10, "class": "label" }, s, label);
      var g = sv("g", { transform: "translate(1," + 15 + ")" }, s);
      function X(c) { return (c - loC) * sx; }
      function Y(r) { return (r - loR) * sy; }
      var rowH = t.shape.length === 1 ? h : null;
      sv("rect", { x: X(0), y: Y(0), width: C * sx, height: rowH || R * sy, "class": "extent" }, g);
      var past = sv("g", { "class": "past" }, g);
      var current = sv("g", { "class": "now" }, g);
      self.boxes[t.name] = { past: past, current: current, X: X, Y: Y, sx: sx, sy: sy, rowH: rowH };
      var seen = {};
      steps.forEach(function (s2) {
        if (!s2.box || s2.box.tensor !== t.name) return;
        var key = s2.box.start.join(",") + "/" + s2.box.extent.join(",");
        if (seen[key]) return;
        seen[key] = true;
        var st = rc(s2.box.start), ex = rc(s2.box.extent);
        sv("rect", { x: X(st[1]), y: Y(st[0]), width: ex[1] * sx, height: rowH || ex[0] * sy,
                     "class": "box past" }, past);
      });
    });
  };

  Panel.prototype.go = function (i) {
    var steps = this.steps();
    if (!steps.length) {
      this.step = 0;
      this.count.textContent = "no steps";
      this.readout.textContent = this.v.refused ? "nothing runs: " + this.v.refused : "no loads or stores";
      [this.bFirst, this.bPrev, this.bNext, this.bLast, this.slider].forEach(function (b) { b.disabled = true; });
      this.drawThreads(null, null);
      return;
    }
    i = Math.max(0, Math.min(steps.length - 1, i));
    this.step = i;
    var s = steps[i];
    this.slider.max = steps.length - 1;
    this.slider.value = i;
    this.bFirst.disabled = this.bPrev.disabled = i === 0;
    this.bNext.disabled = this.bLast.disabled = i === steps.length - 1;
    this.count.textContent = "step " + (i + 1) + " of " + steps.length;
    this.root.setAttribute("data-step", i);
    this.readout.textContent = "";
    var self = this;
    s.readout.forEach(function (line) { el("p", {}, self.readout, line); });
    var c = this.v.ctas[this.ctaIndex];
    if (c.truncated && i === steps.length - 1) {
      el("p", {}, this.readout, "(" + c.truncated + " more steps of this CTA are not recorded)");
    }
    this.drawBoxes(s);
    this.stageRects.forEach(function (rects) {
      rects.forEach(function (r) { r.classList.remove("read", "write"); });
    });
    s.shared.forEach(function (u) {
      var r = self.stageRects[u.buffer] && self.stageRects[u.buffer][u.stage];
      if (r) r.classList.add(u.use);
    });
    this.barrierItems.forEach(function (li, j) { li.classList.toggle("current", s.barriers.indexOf(j) >= 0); });
    this.accessRows.forEach(function (tr, j) { tr.classList.toggle("current", s.access === j); });
    this.lines.forEach(function (span, j) { span.classList.toggle("current", j + 1 === s.line); });
    this.drawThreads(s.access !== null && s.access !== undefined ? this.v.accesses[s.access] : null, s);
  };

  Panel.prototype.drawBoxes = function (s) {
    for (var name in this.boxes) this.boxes[name].current.textContent = "";
    if (!s.box) return;
    var b = this.boxes[s.box.tensor];
    if (!b) return;
    var st = rc(s.box.start), ex = rc(s.box.extent);
    sv("rect", { x: b.X(st[1]), y: b.Y(st[0]), width: ex[1] * b.sx, height: b.rowH || ex[0] * b.sy,
                 "class": "box current", "data-start": s.box.start.join(","), "data-extent": s.box.extent.join(","),
                 "data-masked": s.box.masked }, b.current);
    s.box.outside.forEach(function (r) {
      var n = r.length / 2, lo = rc(r.slice(0, n)), hi = rc(r.slice(n));
      sv("rect", { x: b.X(lo[1]), y: b.Y(lo[0]), width: (hi[1] - lo[1]) * b.sx,
                   height: b.rowH || (hi[0] - lo[0]) * b.sy, "class": "outside" }, b.current);
    });
  };

  Panel.prototype.drawThreads = function (a, s) {
    var box = this.threadsBox, self = this;
    box.textContent = "";
    this.hover.textContent = "";
    if (!a || !a.map) {
      this.threadsTitle.textContent = a ? "no thread picture for this access (the kernel has no layout)"
                                        : "this step moves no tile between global memory and the threads";
      box.style.width = box.style.height = "0px";
      return;
    }
    var map = this.v.maps[a.map], shape = rows2(map.shape), R = shape[0], C = shape[1];
    this.threadsTitle.textContent = a.kind + " of '" + a.tensor + "' [" + a.tile.join("x") + "]: " +
      (a.mapping === "copy" ? "the dot lowering's copy (chunk q to thread q mod " + this.v.threads + ")"
                            : "the kernel's layout: " + (this.v.layout_words || this.v.layout)) +
      (map.replicas > 1 ? ", each element held by " + map.replicas + " threads" : "");
    // A 1-D tile is drawn wrapped, WRAP elements a row; (r, c) are tile coordinates.
    var WRAP = 64, wrapped = map.shape.length === 1 && C > WRAP;
    var VR = wrapped ? Math.ceil(C / WRAP) : R, VC = wrapped ? WRAP : C;
    var cw = Math.max(1, Math.min(22, Math.floor(400 / VC))), ch = Math.max(2, Math.min(22, Math.floor(320 / VR)));
    function at(r, c) { return wrapped ? [Math.floor(c / WRAP), c % WRAP] : [r, c]; }
    function rects(lo, hi) {  // view rectangles [row, col, rows, cols] covering tile coordinates [lo, hi)
      if (!wrapped) return [[lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]]];
      var out = [];
      for (var k = lo[1]; k < hi[1];) {
        var row = Math.floor(k / WRAP), end = Math.min(hi[1], (row + 1) * WRAP);
        out.push([row, k % WRAP, 1, end - k]);
        k = end;
      }
      return out;
    }
    function draw(lo, hi, attrs, pad) {
      rects(lo, hi).forEach(function (q) {
        sv("rect", Object.assign({ x: q[1] * cw - pad, y: q[0] * ch - pad, width: q[3] * cw + 2 * pad,
                                   height: q[2] * ch + 2 * pad }, attrs), svgEl);
      });
    }
    var W = VC * cw, H = VR * ch;
    box.style.width = W + "px";
    box.style.height = H + "px";
    var canvas = el("canvas", { width: W, height: H, "class": "thread-map", "data-map": a.map }, box);
    var ctx = canvas.getContext("2d");
    for (var r = 0; r < R; r++) {
      for (var c = 0; c < C; c++) {
        var t = map.owner[r * C + c], p = at(r, c);
        var warp = Math.floor(t / 32), lane = t % 32;
        ctx.fillStyle = t < 0 ? "#fff" : "hsl(" + ((warp * 67) % 360) + ",55%," + (78 - (lane % 8) * 3) + "%)";
        ctx.fillRect(p[1] * cw, p[0] * ch, cw - (cw > 4 ? 1 : 0), ch - (ch > 4 ? 1 : 0));
      }
    }
    var svgEl = sv("svg", { width: W, height: H, "class": "lanes" }, box);
    if (s && s.box) {
      s.box.masked_tile.forEach(function (q) {
        var n = q.length / 2;
        draw(rc(q.slice(0, n)), rc(q.slice(n)), { "class": "masked" }, 0);
      });
      s.box.masked_cells.forEach(function (k) {
        var lo = [Math.floor(k / C), k % C];
        draw(lo, [lo[0] + 1, lo[1] + 1], { "class": "masked" }, 0);
      });
    }
    var req = a.request;
    if (req) {
      var labelled = {};  // one lane number per cell, and only where it fits: they overlapped
      req.lanes.forEach(function (elements, lane) {
        elements.forEach(function (e) {
          var q = rc(e.at);
          draw(q, [q[0] + 1, q[1] + 1], { "class": "lane", "data-lane": lane, "data-line": e.line }, -0.5);
        });
        if (cw >= 12 && ch >= 10 && elements.length) {
          var p0 = rc(elements[0].at), v0 = at(p0[0], p0[1]), cell = v0[0] + "," + v0[1];
          if (!labelled[cell] && cw >= String(lane).length * 6 + 2) {
            labelled[cell] = true;
            sv("text", { x: v0[1] * cw + 1, y: v0[0] * ch + ch - 2, "class": "lane-label" }, svgEl, String(lane));
          }
        }
      });
      req.lines.forEach(function (l, k) {
        draw(rc(l.lo), rc(l.hi), { "class": "line" + (l.extra ? " extra" : ""), "data-line": k }, 1);
      });
    }
    svgEl.addEventListener("mousemove", function (ev) {
      var rect = svgEl.getBoundingClientRect();
      var vc = Math.floor((ev.clientX - rect.left) / cw), vr = Math.floor((ev.clientY - rect.top) / ch);
      var r = wrapped ? 0 : vr, c = wrapped ? vr * WRAP + vc : vc;
      if (vr < 0 || vc < 0 || vc >= VC || r >= R || c >= C) return;
      var t = map.owner[r * C + c];
      self.hover.textContent = "element " + (wrapped ? c : "(" + r + ", " + c + ")") + " of the tile: thread " + t +
        " (warp " + Math.floor(t / 32) + ", lane " + (t % 32) + ")";
    });
  };

  var main = document.getElementById("variants");
  data.variants.forEach(function (v) { panels.push(new Panel(v, main)); });
  document.body.setAttribute("data-ready", "true");
})();
