"""Lesson 9: tiled transpose through shared memory; the blank is the tile's leading dimension."""
