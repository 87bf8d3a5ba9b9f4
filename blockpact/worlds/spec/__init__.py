"""World files: the schema (`WorldSpec`), the loader with `file:line` errors, validation, and the
minecraft-data extract shipped with the package."""
