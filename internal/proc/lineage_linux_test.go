package proc

import (
	"os"
	"testing"
)

func TestLineageOfSelf(t *testing.T) {
	line, err := Lineage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if line[0].PID != os.Getpid() || line[0].PPID != os.Getppid() || line[0].UID != os.Getuid() {
		t.Errorf("first of lineage = %+v, want this process (pid %d, parent %d, uid %d)", line[0], os.Getpid(), os.Getppid(), os.Getuid())
	}
	if len(line) > 1 && line[1].PID != os.Getppid() {
		t.Errorf("second of lineage = pid %d, want the parent %d", line[1].PID, os.Getppid())
	}
}

func TestTerminalName(t *testing.T) {
	tests := []struct {
		nr   uint32
		want string
	}{
		{0, ""},
		{136<<8 | 3, "/dev/pts/3"},
		{137<<8 | 1, "/dev/pts/257"},
		{4<<8 | 1, "/dev/tty1"},
		{5<<8 | 0, "tty(5:0)"},
	}
	for _, tt := range tests {
		if got := terminalName(tt.nr); got != tt.want {
			t.Errorf("terminalName(%#x) = %q, want %q", tt.nr, got, tt.want)
		}
	}
}

func TestLineageMissing(t *testing.T) {
	if _, err := lineage(t.TempDir(), 1234); err == nil {
		t.Error("lineage of a process that cannot be read: no error")
	}
}
