"""Lesson 8: naive transpose and coalesced access; the blank is the output index of the transposed element."""
