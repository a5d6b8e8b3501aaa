"""Each task type's prompt, as the authors' runners build it."""
