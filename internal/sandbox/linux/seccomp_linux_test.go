//go:build linux

package linux

import (
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter interprets the few classic BPF instructions the filter uses, over one
// system call.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args [6]uint64) uint32 {
	t.Helper()
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			switch in.K {
			case offNr:
				a = nr
			case offArch:
				a = arch
			default:
				a = uint32(args[(in.K-offArg0)/8])
			}
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if a == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("unexpected instruction %+v", in)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

type filterCase struct {
	name     string
	arch, nr uint32
	args     [6]uint64
	want     uint32
}

func TestMPTCPFilter(t *testing.T) {
	native := seccompArch{audit: unix.AUDIT_ARCH_X86_64, socket: 41}
	compat := &seccompArch{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102}
	deny := unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)
	for _, c := range []*seccompArch{compat, {audit: unix.AUDIT_ARCH_ARM, socket: 281}, nil} {
		prog, err := mptcpFilter(native, c)
		if err != nil {
			t.Fatal(err)
		}
		cases := []filterCase{
			{"MPTCP socket", native.audit, 41, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP}, deny},
			{"TCP socket", native.audit, 41, [6]uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, unix.SECCOMP_RET_ALLOW},
			{"another call", native.audit, 42, [6]uint64{0, 0, unix.IPPROTO_MPTCP}, unix.SECCOMP_RET_ALLOW},
		}
		if c != nil {
			cases = append(cases,
				filterCase{"32-bit MPTCP socket", c.audit, c.socket, [6]uint64{2, 1, unix.IPPROTO_MPTCP}, deny},
				filterCase{"32-bit TCP socket", c.audit, c.socket, [6]uint64{2, 1, 6}, unix.SECCOMP_RET_ALLOW},
			)
		}
		if c != nil && c.socketcall != 0 {
			cases = append(cases, filterCase{"socketcall(SOCKET)", c.audit, c.socketcall, [6]uint64{sysSocketcallSocket}, deny})
		}
		for _, tc := range cases {
			if got := runFilter(t, prog, tc.arch, tc.nr, tc.args); got != tc.want {
				t.Errorf("compat %+v, %s: %#x, want %#x", c, tc.name, got, tc.want)
			}
		}
	}
}
