"""The synthetic generator: PersonaMem-v3-shaped personas for offline tests and try."""
