"""Each rule's fires and quiet cases, one module per rule (as src/nastune/rules/catalog)."""
