// Package portkit is what formd's driving ports (the JSON API, the
// dashboard and the MCP server) share, so each rule of how a request is
// handled or a record is shown is written once: the JSON shapes of the
// records more than one port gives out (forms, validation rules,
// deliveries, integrations, recipient verifications), and the plumbing of
// an HTTP request (its id, the access log, Retry-After, a client's bucket,
// the bound on concurrent password checks).
//
// It sees only the application and the domain, like the ports themselves,
// and imports no port: scripts/check-architecture.sh lets every port import
// it and nothing else of another port.
package portkit
