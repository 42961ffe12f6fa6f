package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

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
				userTasks = countUserTasks
			}
			n, err := userTasks()
			if err != nil {
				return fmt.Errorf("counting this user's processes for the limit +%d: %w", l.Processes, err)
			}
			v += n
			detail = fmt.Sprintf("%d running now + %d; %s", n, l.Processes, detail)
		}
		if os.Geteuid() == 0 {
			detail += "; NOT ENFORCED for root, whom the kernel exempts"
		}
		add("processes", rlimitNProc, v, detail)
	}
	add("cpu-time", rlimitCPU, l.CPUSeconds, "seconds of CPU per process (RLIMIT_CPU)")
	return nil
}

// countUserTasks counts the tasks (processes and their threads) whose real user is this
// process's, as RLIMIT_NPROC counts them.
func countUserTasks() (uint64, error) {
	uid := []byte(strconv.Itoa(os.Getuid()))
	dirs, err := filepath.Glob("/proc/[0-9]*/status")
	if err != nil {
		return 0, err
	}
	if len(dirs) == 0 {
		return 0, fmt.Errorf("/proc lists no processes")
	}
	var n uint64
	for _, f := range dirs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the process ended
		}
		var mine bool
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Bytes()
			if v, ok := bytes.CutPrefix(line, []byte("Uid:")); ok {
				fields := bytes.Fields(v)
				mine = len(fields) > 0 && bytes.Equal(fields[0], uid)
			} else if v, ok := bytes.CutPrefix(line, []byte("Threads:")); ok && mine {
				t, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
				if err == nil {
					n += t
				}
				break
			}
		}
	}
	return n, nil
}
