package profile

// Capabilities added with review v2 (LEVELS.md friction rows).
const (
	// CapQuery is a read-only query to a remote service by a known client:
	// it runs with the network and that client's credential, read-only,
	// for this command only.
	CapQuery Cap = "query"
	// CapDesktop writes the clipboard or opens a file or URL with another
	// program.
	CapDesktop Cap = "desktop"
)
