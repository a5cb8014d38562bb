/* The launcher of one checked torch/cupy argument layout, in C (runtime/clauncher.py builds, loads
 * and describes it; runtime/fastpath.py has the same launcher in Python, which stays the fallback).
 *
 * A call reads each tensor through its framework's accessors (the reads the Python launcher makes),
 * compares every part of the layout key with the key the layout was checked under, checks the
 * scalars' exact types, classes and ranges and the read-only/written overlap rule, then packs the
 * parameters into a copy of the plan's prebuilt buffer on the stack and calls cuLaunchKernelEx.
 * Anything that differs, fails or is unusual (keywords other than stream/grid/sync/check, another
 * layout, a scalar the packer refuses, overlapping tensors) hands the call, unchanged, to the Python
 * launcher, which takes its own path and raises the errors that name the parameter: no error but
 * the driver's is raised here. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000 /* public from 3.11 on */
#define PyFloat_Pack2 _PyFloat_Pack2
#define PyFloat_Pack4 _PyFloat_Pack4
#define PyFloat_Pack8 _PyFloat_Pack8
#endif

#define MAX_STEPS 4
#define MAX_FIELDS 8
#define MAX_TENSORS 32
#define MAX_SCALARS 32
#define MAX_SLOTS 256
#define MAX_PAIRS 64
#define MAX_BUFFER (56 + 16 * MAX_SLOTS)

typedef int (*launch_ex_t)(const void *config, void *function, void **params, void **extra);

typedef struct { PyObject *name; int call; } Step;   /* getattr, then call it with no arguments */
typedef struct { int n; Step steps[MAX_STEPS]; } Path;  /* n == 0: the pointer's 16-byte alignment */
typedef struct { Path path; PyObject *expected; } Field;
typedef struct { int arg, nfields; Field fields[MAX_FIELDS]; } Tensor;
typedef struct { int arg; char format; Py_ssize_t offset; PyObject *classes; } Scalar; /* classes: (s%16==0, s%4==0) */
typedef struct { int r, w, same; long long sr, sw; } Pair;

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  int nargs, ntensors, nscalars, npointers, npairs, nslots;
  PyTypeObject *tensor_type;
  Tensor tensors[MAX_TENSORS];
  Path pointer;
  int pointer_tensor[MAX_SLOTS];
  Py_ssize_t pointer_offset[MAX_SLOTS];
  Scalar scalars[MAX_SCALARS];
  Pair pairs[MAX_PAIRS];
  PyObject *stream_fn, *stream_args, *stream_attr; /* None stream: stream_fn(*stream_args)[.stream_attr] */
  PyObject *key_grid;
  unsigned char image[MAX_BUFFER];                  /* config and constants, then params[] offsets */
  Py_ssize_t params_at, slot_offset[MAX_SLOTS];
  launch_ex_t entry;
  void *function;
  PyObject *last, *last_key, *last_attr, *name, *owner, *variant, *device, *make_current, *failed, *fallback, *fallback_front;
  PyObject *objects; /* everything above that holds a reference, kept alive together */
} Launcher;

static _Thread_local PyObject *made_current_for; /* the device whose context this thread made current */

/* ------------------------------------------------------------------------------------------ reads */

static PyObject *read_path(PyObject *obj, const Path *path) {
  Py_INCREF(obj);
  for (int i = 0; i < path->n; i++) {
    PyObject *next = path->steps[i].call ? PyObject_CallMethodNoArgs(obj, path->steps[i].name)
                                         : PyObject_GetAttr(obj, path->steps[i].name);
    Py_DECREF(obj);
    if (next == NULL) return NULL;
    obj = next;
  }
  return obj;
}

/* 1: the tensor has the layout's key parts (its address in *ptr); 0: not (or a read failed) */
static int read_tensor(Launcher *self, const Tensor *t, PyObject *a, unsigned long long *ptr) {
  PyObject *p = read_path(a, &self->pointer);
  if (p == NULL) return 0;
  *ptr = PyLong_AsUnsignedLongLong(p);
  Py_DECREF(p);
  if (*ptr == (unsigned long long)-1 && PyErr_Occurred()) return 0;
  for (int f = 0; f < t->nfields; f++) {
    const Field *field = &t->fields[f];
    if (field->path.n == 0) {
      if (((*ptr & 15) == 0) != (field->expected == Py_True)) return 0;
      continue;
    }
    PyObject *got = read_path(a, &field->path);
    if (got == NULL) return 0;
    int same = PyObject_RichCompareBool(got, field->expected, Py_EQ);
    Py_DECREF(got);
    if (same != 1) return 0;
  }
  return 1;
}

/* 1: packed into buf; 0: a type, class or value the Python launcher must see */
static int pack_scalar(const Scalar *s, PyObject *v, unsigned char *buf) {
  unsigned char *at = buf + s->offset;
  char f = s->format;
  if (f == '?') {
    if (!PyBool_Check(v)) return 0;
    *at = v == Py_True;
    return 1;
  }
  if (f == 'f' || f == 'd' || f == 'e') {
    if (!PyFloat_CheckExact(v) && !PyLong_CheckExact(v)) return 0;
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) return 0;
    int bad = f == 'f' ? PyFloat_Pack4(x, (char *)at, 1) : f == 'd' ? PyFloat_Pack8(x, (char *)at, 1)
                                                          : PyFloat_Pack2(x, (char *)at, 1);
    return bad == 0;
  }
  if (!PyLong_CheckExact(v)) return 0;
  int overflow;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow || (x == -1 && PyErr_Occurred())) return 0;
  if (s->classes != Py_None) { /* the integer's class is part of the key: (s % 16 == 0, s % 4 == 0) */
    if ((x % 16 == 0) != (PyTuple_GET_ITEM(s->classes, 0) == Py_True)) return 0;
    if ((x % 4 == 0) != (PyTuple_GET_ITEM(s->classes, 1) == Py_True)) return 0;
  }
  switch (f) {
    case 'b': if (x < -128 || x > 127) return 0; *(int8_t *)at = (int8_t)x; return 1;
    case 'B': if (x < 0 || x > 255) return 0; *(uint8_t *)at = (uint8_t)x; return 1;
    case 'i': if (x < INT32_MIN || x > INT32_MAX) return 0; { int32_t y = (int32_t)x; memcpy(at, &y, 4); } return 1;
    case 'I': if (x < 0 || x > UINT32_MAX) return 0; { uint32_t y = (uint32_t)x; memcpy(at, &y, 4); } return 1;
    case 'q': memcpy(at, &x, 8); return 1;
  }
  return 0;
}

static int grid_matches(Launcher *self, PyObject *grid) {
  if (self->key_grid == Py_None) return grid == Py_None;
  if (Py_TYPE(grid) != Py_TYPE(self->key_grid)) return 0;
  return PyObject_RichCompareBool(grid, self->key_grid, Py_EQ) == 1;
}

static int stream_of(Launcher *self, PyObject *stream, unsigned long long *out) {
  PyObject *s;
  if (stream == Py_None) {
    s = PyObject_Call(self->stream_fn, self->stream_args, NULL);
    if (s != NULL && self->stream_attr != Py_None) {
      PyObject *handle = PyObject_GetAttr(s, self->stream_attr);
      Py_DECREF(s);
      s = handle;
    }
    if (s == NULL) return 0;
    if (!PyLong_CheckExact(s)) { Py_DECREF(s); return 0; }
  } else {
    if (!PyLong_CheckExact(stream)) return 0;
    s = Py_NewRef(stream);
  }
  *out = PyLong_AsUnsignedLongLong(s);
  Py_DECREF(s);
  return !(*out == (unsigned long long)-1 && PyErr_Occurred());
}

/* ----------------------------------------------------------------------------------------- launch */

/* 1: launched; 0: not this launcher's (nothing reached the driver); -1: an error is set */
static int launch(Launcher *self, PyObject *const *args, PyObject *stream) {
  uint64_t words[MAX_BUFFER / 8];
  unsigned char *buf = (unsigned char *)words;
  unsigned long long ptrs[MAX_TENSORS], handle;
  for (int i = 0; i < self->ntensors; i++) {
    PyObject *a = args[self->tensors[i].arg];
    if (Py_TYPE(a) != self->tensor_type) return 0;
  }
  memcpy(buf, self->image, self->params_at + 8 * self->nslots);
  for (int i = 0; i < self->nscalars; i++)
    if (!pack_scalar(&self->scalars[i], args[self->scalars[i].arg], buf)) goto miss;
  for (int i = 0; i < self->ntensors; i++)
    if (!read_tensor(self, &self->tensors[i], args[self->tensors[i].arg], &ptrs[i])) goto miss;
  for (int i = 0; i < self->npairs; i++) { /* [pr, pr + sr) and [pw, pw + sw) meet: the Python path says so */
    const Pair *q = &self->pairs[i];
    __int128 d = (__int128)ptrs[q->r] - (__int128)ptrs[q->w];
    if (-q->sr < d && d < q->sw && !(q->same && d == 0)) return 0;
  }
  if (!stream_of(self, stream, &handle)) goto miss;
  memcpy(buf + 32, &handle, 8);
  for (int i = 0; i < self->npointers; i++) memcpy(buf + self->pointer_offset[i], &ptrs[self->pointer_tensor[i]], 8);
  void **params = (void **)(buf + self->params_at);
  for (int s = 0; s < self->nslots; s++) params[s] = buf + self->slot_offset[s];
  if (made_current_for != self->device) { /* this thread's first launch on the device */
    PyObject *r = PyObject_CallNoArgs(self->make_current);
    if (r == NULL) return -1;
    Py_DECREF(r);
    made_current_for = self->device;
  }
  int err;
  Py_BEGIN_ALLOW_THREADS
  err = self->entry(buf, self->function, params, NULL);
  Py_END_ALLOW_THREADS
  if (PyDict_SetItem(self->last, self->last_key, self->name) < 0) return -1;
  if (self->owner != Py_None && PyObject_SetAttr(self->owner, self->last_attr, self->variant) < 0) return -1;
  if (err) {
    PyObject *r = PyObject_CallFunction(self->failed, "i", err);
    Py_XDECREF(r);
    return -1;
  }
  return 1;
miss:
  PyErr_Clear();
  return 0;
}

static PyObject *cleared(void) { /* only reachable from a finalizer of a collected cycle */
  PyErr_SetString(PyExc_RuntimeError, "claunch: the launcher was cleared");
  return NULL;
}

/* k(*args, grid=, stream=, sync=, check=): the layout's launch, else the Python launcher's call */
static PyObject *call(Launcher *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  PyObject *stream = Py_None, *grid = Py_None;
  if (self->objects == NULL) return cleared();
  if (n != self->nargs) goto fallback;
  if (kwnames != NULL) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
      PyObject *key = PyTuple_GET_ITEM(kwnames, i), *value = args[n + i];
      if (PyUnicode_CompareWithASCIIString(key, "stream") == 0) stream = value;
      else if (PyUnicode_CompareWithASCIIString(key, "grid") == 0) grid = value;
      else if (PyUnicode_CompareWithASCIIString(key, "sync") == 0) { if (value != Py_False) goto fallback; }
      else if (PyUnicode_CompareWithASCIIString(key, "check") == 0) { if (value != Py_True) goto fallback; }
      else goto fallback;
    }
  }
  if (!grid_matches(self, grid)) goto fallback;
  int done = launch(self, args, stream);
  if (done < 0) return NULL;
  if (done) Py_RETURN_NONE;
fallback:
  return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

/* front(args, grid, stream, sync) -> None (launched) | what the Python launcher's front answers */
static PyObject *front(Launcher *self, PyObject *const *a, Py_ssize_t n) {
  if (n != 4) {
    PyErr_SetString(PyExc_TypeError, "front(args, grid, stream, sync)");
    return NULL;
  }
  if (self->objects == NULL) return cleared();
  PyObject *args = a[0];
  if (PyTuple_CheckExact(args) && PyTuple_GET_SIZE(args) == self->nargs && a[3] == Py_False && grid_matches(self, a[1])) {
    int done = launch(self, &PyTuple_GET_ITEM(args, 0), a[2]);
    if (done < 0) return NULL;
    if (done) Py_RETURN_NONE;
  }
  return PyObject_Vectorcall(self->fallback_front, a, 4, NULL);
}

/* ------------------------------------------------------------------------------------ construction */

static int bad(const char *what) {
  PyErr_Format(PyExc_ValueError, "claunch: bad %s", what);
  return -1;
}

static int parse_path(PyObject *o, Path *path) {
  if (o == Py_None) { path->n = 0; return 0; }
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) < 1 || PyTuple_GET_SIZE(o) > MAX_STEPS) return bad("path");
  path->n = (int)PyTuple_GET_SIZE(o);
  for (int i = 0; i < path->n; i++) {
    PyObject *step = PyTuple_GET_ITEM(o, i);
    if (!PyTuple_Check(step) || PyTuple_GET_SIZE(step) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(step, 0)))
      return bad("step");
    path->steps[i].name = PyTuple_GET_ITEM(step, 0);
    path->steps[i].call = PyObject_IsTrue(PyTuple_GET_ITEM(step, 1));
  }
  return 0;
}

static int parse_tensors(Launcher *self, PyObject *o) {
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) < 1 || PyTuple_GET_SIZE(o) > MAX_TENSORS) return bad("tensors");
  self->ntensors = (int)PyTuple_GET_SIZE(o);
  for (int i = 0; i < self->ntensors; i++) {
    Tensor *t = &self->tensors[i];
    PyObject *fields;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(o, i), "iO!", &t->arg, &PyTuple_Type, &fields)) return -1;
    if (t->arg < 0 || t->arg >= self->nargs || PyTuple_GET_SIZE(fields) > MAX_FIELDS) return bad("tensor");
    t->nfields = (int)PyTuple_GET_SIZE(fields);
    for (int f = 0; f < t->nfields; f++) {
      PyObject *path;
      if (!PyArg_ParseTuple(PyTuple_GET_ITEM(fields, f), "OO", &path, &t->fields[f].expected)) return -1;
      if (parse_path(path, &t->fields[f].path) < 0) return -1;
    }
  }
  return 0;
}

static int parse_slots(Launcher *self, PyObject *pointers, PyObject *scalars, PyObject *pairs, Py_ssize_t size) {
  if (PyTuple_GET_SIZE(pointers) > MAX_SLOTS || PyTuple_GET_SIZE(scalars) > MAX_SCALARS ||
      PyTuple_GET_SIZE(pairs) > MAX_PAIRS)
    return bad("slot count");
  self->npointers = (int)PyTuple_GET_SIZE(pointers);
  for (int i = 0; i < self->npointers; i++) {
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(pointers, i), "in", &self->pointer_tensor[i], &self->pointer_offset[i]))
      return -1;
    if (self->pointer_tensor[i] < 0 || self->pointer_tensor[i] >= self->ntensors || self->pointer_offset[i] < 56 ||
        self->pointer_offset[i] + 8 > size)
      return bad("pointer slot");
  }
  self->nscalars = (int)PyTuple_GET_SIZE(scalars);
  for (int i = 0; i < self->nscalars; i++) {
    Scalar *s = &self->scalars[i];
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(scalars, i), "iCnO", &s->arg, &s->format, &s->offset, &s->classes))
      return -1;
    if (s->arg < 0 || s->arg >= self->nargs || s->offset < 56 || s->offset + 8 > size || !strchr("?fdebBiIq", s->format) ||
        (s->classes != Py_None && (!PyTuple_Check(s->classes) || PyTuple_GET_SIZE(s->classes) != 2)))
      return bad("scalar");
  }
  self->npairs = (int)PyTuple_GET_SIZE(pairs);
  for (int i = 0; i < self->npairs; i++) {
    Pair *q = &self->pairs[i];
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(pairs, i), "iiLLp", &q->r, &q->w, &q->sr, &q->sw, &q->same)) return -1;
    if (q->r < 0 || q->r >= self->ntensors || q->w < 0 || q->w >= self->ntensors) return bad("pair");
  }
  return 0;
}

static int parse_buffer(Launcher *self, PyObject *image, PyObject *offsets) {
  Py_ssize_t size = PyBytes_GET_SIZE(image);
  self->nslots = (int)PyTuple_GET_SIZE(offsets);
  if (size < 56 || size % 8 || self->nslots > MAX_SLOTS || size + 8 * self->nslots > MAX_BUFFER) return bad("image");
  self->params_at = size;
  memset(self->image, 0, sizeof self->image);
  memcpy(self->image, PyBytes_AS_STRING(image), size);
  for (int s = 0; s < self->nslots; s++) {
    self->slot_offset[s] = PyLong_AsSsize_t(PyTuple_GET_ITEM(offsets, s));
    if (self->slot_offset[s] < 56 || self->slot_offset[s] + 8 > size) return PyErr_Occurred() ? -1 : bad("offset");
  }
  return 0;
}

static PyTypeObject LauncherType;

static PyObject *make(PyObject *module, PyObject *args) {
  Launcher *self = PyObject_GC_New(Launcher, &LauncherType);
  if (self == NULL) return NULL;
  self->objects = self->last_key = self->last_attr = NULL;
  self->vectorcall = (vectorcallfunc)call;
  PyObject *tensors, *pointer, *pointers, *scalars, *pairs, *image, *offsets;
  unsigned long long entry, function;
  if (!PyArg_ParseTuple(args, "iO!O!OO!O!O!(OO!O)OO!O!KKO!OOOOOOOO", &self->nargs, &PyType_Type, &self->tensor_type,
                        &PyTuple_Type, &tensors, &pointer, &PyTuple_Type, &pointers, &PyTuple_Type, &scalars,
                        &PyTuple_Type, &pairs, &self->stream_fn, &PyTuple_Type, &self->stream_args, &self->stream_attr,
                        &self->key_grid, &PyBytes_Type, &image, &PyTuple_Type, &offsets, &entry, &function, &PyDict_Type,
                        &self->last, &self->name, &self->owner, &self->variant, &self->device, &self->make_current,
                        &self->failed, &self->fallback, &self->fallback_front))
    goto error;
  self->entry = (launch_ex_t)(uintptr_t)entry;
  self->function = (void *)(uintptr_t)function;
  if (parse_tensors(self, tensors) < 0 || parse_path(pointer, &self->pointer) < 0 || self->pointer.n == 0 ||
      parse_buffer(self, image, offsets) < 0 || parse_slots(self, pointers, scalars, pairs, self->params_at) < 0)
    goto error;
  if (!entry || !PyCallable_Check(self->fallback) || !PyCallable_Check(self->fallback_front) ||
      (self->stream_attr != Py_None && !PyUnicode_Check(self->stream_attr)))
    goto error_bad;
  self->last_key = PyUnicode_InternFromString("kernel");
  self->last_attr = PyUnicode_InternFromString("_last"); /* made once: SetAttrString makes a str per launch */
  if (self->last_key == NULL || self->last_attr == NULL) goto error;
  self->objects = Py_NewRef(args); /* every borrowed reference above lives in it */
  PyObject_GC_Track(self);
  return (PyObject *)self;
error_bad:
  bad("launcher");
error:
  Py_DECREF(self);
  return NULL;
}

static int traverse(Launcher *self, visitproc visit, void *arg) {
  Py_VISIT(self->objects);
  return 0;
}

static int clear(Launcher *self) {
  Py_CLEAR(self->objects);
  return 0;
}

static void dealloc(Launcher *self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->objects);
  Py_CLEAR(self->last_key);
  Py_CLEAR(self->last_attr);
  PyObject_GC_Del(self);
}

static PyMethodDef launcher_methods[] = {
  {"front", (PyCFunction)(void (*)(void))front, METH_FASTCALL, "front(args, grid, stream, sync)"},
  {NULL},
};

static PyTypeObject LauncherType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "phobos_claunch.Launcher",
  .tp_basicsize = sizeof(Launcher),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
  .tp_vectorcall_offset = offsetof(Launcher, vectorcall),
  .tp_call = PyVectorcall_Call,
  .tp_traverse = (traverseproc)traverse,
  .tp_clear = (inquiry)clear,
  .tp_dealloc = (destructor)dealloc,
  .tp_methods = launcher_methods,
};

static PyMethodDef module_methods[] = {
  {"make", make, METH_VARARGS, "make(spec...) -> Launcher (runtime/clauncher.py spells the spec)"},
  {NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "phobos_claunch", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit_phobos_claunch(void) {
  if (PyType_Ready(&LauncherType) < 0) return NULL;
  return PyModule_Create(&module_def);
}
