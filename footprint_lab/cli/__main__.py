"""``python -m footprint_lab.cli``: the ``footprint-lab`` command. Layer: top (the CLI)."""

import sys

from footprint_lab.cli import main

sys.exit(main())
