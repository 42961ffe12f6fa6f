package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkLaunchOverhead compares `moat launch -- /bin/true` with running /bin/true
// directly, and reports the median of each and their difference (the target is 5 ms or
// less), and `moat version` to show how much of it is moat's own start. The launch uses the default sandbox and the embedded policy, with a fake HOME.
func BenchmarkLaunchOverhead(b *testing.B) {
	if _, err := os.Stat("/bin/true"); err != nil {
		b.Skip("no /bin/true")
	}
	bin := moatBinary(b)
	home := b.TempDir()
	ws := b.TempDir()
	for _, f := range []string{".ssh/id_rsa", ".ssh/known_hosts", ".bashrc", ".gitconfig", ".config/app/x", ".cache/x", ".local/bin/x"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, f), []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	policy := filepath.Join(b.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, []byte("version: 1\nsandbox:\n  write: [$workspace]\n  exec: [/usr, /bin, /lib, /lib64, $workspace]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = ws, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return time.Since(start)
	}
	var bare, version, launched []time.Duration
	b.ResetTimer()
	for b.Loop() {
		bare = append(bare, run("/bin/true"))
		version = append(version, run(bin, "version"))
		launched = append(launched, run(bin, "launch", "--policy", policy, "--profile", "none", "--", "/bin/true"))
	}
	b.StopTimer()
	mb, mv, ml := median(bare), median(version), median(launched)
	b.ReportMetric(float64(mb)/1e6, "bare-median-ms")
	b.ReportMetric(float64(ml)/1e6, "launch-median-ms")
	b.ReportMetric(float64(ml-mb)/1e6, "overhead-median-ms")
	// What moat's own start costs (moat version), for telling it from the sandbox's work.
	b.ReportMetric(float64(mv)/1e6, "moat-version-median-ms")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
