"""Prelude P2: memory coalescing; the blank is which element of a 32×32 block each thread moves (the mapping)."""
