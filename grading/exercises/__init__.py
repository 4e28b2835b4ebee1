"""Exercise specs, one folder per exercise."""
