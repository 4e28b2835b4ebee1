"""Prelude P2: memory coalescing; the blank is the thread-to-element index of a row-major matrix."""
