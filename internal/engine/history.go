package engine

// History is what a session's earlier calls did. (Filled in by the correlation work.)
type History interface{}
