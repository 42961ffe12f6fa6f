package dirs

// ManagedDir is the system directory of the managed configuration: %ProgramData%\moat,
// named by its fixed location rather than read from the environment, which an agent
// could set.
const ManagedDir = `C:\ProgramData\moat`
