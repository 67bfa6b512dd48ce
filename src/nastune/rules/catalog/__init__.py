"""One module per rule (named after its id), each with a Markdown doc of the same name."""
