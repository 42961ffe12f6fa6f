package dirs

// ManagedDir is the system directory of the managed configuration.
const ManagedDir = "/Library/Application Support/moat"
