"""The frame families of :func:`footprint_lab.lab.capture`, one module each.

Layer: lab. :mod:`.context` builds, once per run, everything several families read (the ledger
as positions, per-message attributes, stage iterations, each record's commit and windows, each
call's window); every other module turns that context into one frame with ``build(ctx, ...)``,
taking anything it needs from another family as an explicit argument. The families a corpus
store keeps also give their column values untyped, ``columns(ctx, ...)``, which ``build``
types. The columns each builder fills are stated in :mod:`footprint_lab.lab.schema`.
"""
