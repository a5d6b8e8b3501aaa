"""PersonaMem-v3 as released: its spec, the hub download, and the query rows of both layouts."""
