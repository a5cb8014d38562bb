"""Reports about what the compiler decided, for people and for tools.

  explain   the access report of `phobos explain`, the `tile-explain` remarks and the
            `@assert_coalesced` check (per global load and store: vector width and the
            facts that limit it, masks, how warp 0's lanes walk the tensor, 128-byte lines),
            from its parts:
  model     the report's data (dataclasses) and what its modules share
  masks     why each mask is dropped or kept
  lanes     the lane and line picture of each access
  text      the text renderers (render_text, remark_message, coalescing_error)
  default_config  the untuned-default section of `phobos explain` (the words for a
            runtime.autotune DefaultChoice: which configuration a launch that does not tune runs)

A library above analysis/ and lowering/ (whose facts and plans it reads) and below passes/
(tile-explain and tile-check-coalesced print it): it imports no pass and no compiler.
`phobos explain` from source is phobos.compiler.explain; `phobos view` reads the same report.
"""
