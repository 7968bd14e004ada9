// The ATProto module; see docs/ARCHITECTURE.md.
