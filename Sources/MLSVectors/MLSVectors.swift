// The MLSVectors module; see docs/ARCHITECTURE.md.
