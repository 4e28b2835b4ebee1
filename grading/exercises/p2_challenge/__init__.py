"""Part 2's challenge: AoS (12-byte float3-like structs) to SoA with coalesced loads and stores, written whole
(grading.whole)."""
