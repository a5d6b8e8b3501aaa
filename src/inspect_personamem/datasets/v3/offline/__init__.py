"""What the offline models read of PersonaMem-v3, and the oracle as an agent."""
