package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/moatdev/moat/internal/policy"
)

// Resource numbers of getrlimit(2) on Linux; other systems take limits only by name in
// reports, since Exec runs only on Linux.
const (
	rlimitCPU    = 0
	rlimitData   = 2
	rlimitNProc  = 6
	rlimitNOFile = 7
)

func (p *Plan) resourceLimits(l policy.Limits, userTasks func() (uint64, error)) error {
	add := func(name string, res int, v uint64, detail string) {
		if v != 0 && v != policy.Unlimited {
			p.Limits = append(p.Limits, Limit{Name: name, Resource: res, Value: v, Detail: detail})
		}
	}
	add("memory", rlimitData, l.Memory, "bytes of data memory per process (RLIMIT_DATA)")
	add("open-files", rlimitNOFile, l.OpenFiles, "open files per process (RLIMIT_NOFILE)")
	if l.Processes != 0 && l.Processes != policy.Unlimited {
		v := l.Processes
		detail := "processes and threads of this user, counted across the whole system (RLIMIT_NPROC)"
		if l.ProcessesRelative {
			if userTasks == nil {
				userTasks = countTasks
			}
			n, err := userTasks()
			if err != nil {
				return fmt.Errorf("counting this user's processes for the limit +%d: %w", l.Processes, err)
			}
			v += n
			detail = fmt.Sprintf("%d tasks on the system now + %d; %s", n, l.Processes, detail)
		}
		if os.Geteuid() == 0 {
			detail += "; NOT ENFORCED for root, whom the kernel exempts"
		}
		add("processes", rlimitNProc, v, detail)
	}
	add("cpu-time", rlimitCPU, l.CPUSeconds, "seconds of CPU per process (RLIMIT_CPU)")
	return nil
}

// countTasks returns the number of tasks (processes and threads) on the whole system, from
// /proc/loadavg: one read, where counting the user's own would read every process's
// status. Every user has at most that many, so a limit relative to it is never tighter
// than intended.
func countTasks() (uint64, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	// "0.00 0.01 0.05 2/345 6789": running/total tasks is the fourth field.
	fields := strings.Fields(string(data))
	if len(fields) < 4 {
		return 0, fmt.Errorf("/proc/loadavg: unexpected %q", data)
	}
	_, total, ok := strings.Cut(fields[3], "/")
	n, err := strconv.ParseUint(total, 10, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("/proc/loadavg: unexpected %q", data)
	}
	return n, nil
}
