package proc

// Process is one process of a lineage (see Lineage): its Info, its parent, owner and
// controlling terminal.
type Process struct {
	Info
	PPID int
	UID  int
	// Terminal is the controlling terminal's device ("/dev/pts/3"), or "" for a process
	// without one (a daemon, a process an agent started without a terminal).
	Terminal string
}
