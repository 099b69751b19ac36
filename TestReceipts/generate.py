#!/usr/bin/env python3
"""Regenerate TestReceipts/ (python3 TestReceipts/generate.py [--no-check | --check]).

The generator is the package `generator/` beside this file; this only runs it, so that the
command works from anywhere.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generator.__main__ import main  # noqa: E402

sys.exit(main())
