"""The MCP server for agents (`docql-sqlite mcp DB`): tools, resources and a prompt over
the `Index` front door. `tools` and `guide` are plain Python (no MCP types), `server`
wires them into the official `mcp` SDK, `http` guards the Streamable HTTP transport."""
