"""``python -m grading``: see grading/cli.py."""
import sys

from .cli import main

sys.exit(main())
