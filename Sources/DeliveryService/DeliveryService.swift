// The DeliveryService module; see docs/ARCHITECTURE.md.
