package shell

import (
	"slices"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// A container's command is analysed with its paths translated through the bind mounts:
// the host's paths it reaches are accesses, the image's own paths are none.
func TestContainerRunMounts(t *testing.T) {
	del := func(p string) call.Access { return call.Access{Kind: call.Delete, Path: p, Recursive: true} }
	tests := []struct {
		line string
		want []call.Access // the deletes of the last command; nil for none
	}{
		{"docker run -v /:/host alpine rm -rf /host/etc", []call.Access{del("/etc")}},
		{"docker run --volume=/srv:/data alpine rm -rf /data/x", []call.Access{del("/srv/x")}},
		{"docker run -v /srv:/data:ro -v /srv/db:/data/db alpine rm -rf /data/db/x", []call.Access{del("/srv/db/x")}},
		{"docker run --mount type=bind,source=/srv,target=/data alpine rm -rf /data", []call.Access{del("/srv")}},
		{"docker run --mount type=volume,source=v,target=/data alpine rm -rf /data", nil},
		{"docker run -v $HOME:/h alpine rm -rf /h/x", []call.Access{del(testEnv.Home + "/x")}},
		{"docker run -v \"$(pwd)\":/src -w /src alpine rm -rf build", []call.Access{del(testEnv.Cwd + "/build")}},
		{"docker run -v ./data:/d alpine rm -rf /d", []call.Access{del(testEnv.Cwd + "/data")}},
		{"podman container run -it -e A=1 -v /srv:/s --name x alpine sh -c 'rm -rf /s/y'", []call.Access{del("/srv/y")}},
		{"nerdctl run -v /srv:/s --entrypoint rm alpine -rf /s/y", []call.Access{del("/srv/y")}},
		{"docker run --rm alpine rm -rf /etc", nil},
		{"docker run -v pgdata:/var/lib/postgresql alpine rm -rf /var/lib/postgresql", nil},
	}
	for _, tt := range tests {
		a := Analyze(tt.line, testEnv)
		var got []call.Access
		for _, c := range a.Commands {
			for _, acc := range c.Accesses {
				if acc.Kind == call.Delete {
					got = append(got, acc)
				}
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: deletes %v, want %v:\n%s", tt.line, got, tt.want, render(a))
		}
	}
}

// A mount whose host side is only known at run time makes what is below it opaque.
func TestContainerRunUnknownMount(t *testing.T) {
	for _, line := range []string{"docker run -v $DIR:/d alpine rm -rf /d", "docker run --volumes-from data alpine rm -rf /d"} {
		c := last(t, line)
		if !c.Opaque || len(c.Accesses) != 0 {
			t.Errorf("%s: want an opaque delete, got %v (opaque %v)", line, c.Accesses, c.Opaque)
		}
	}
}

// Every option of runValueOptions takes its value, which is never taken for the image.
func TestRunValueOptionsTable(t *testing.T) {
	for _, o := range runValueOptions().long {
		line := "docker run --" + o + " v -v /srv:/s alpine rm -rf /s/x"
		if o == "volume" || o == "mount" || o == "volumes-from" || o == "entrypoint" || o == "workdir" {
			continue
		}
		if c := last(t, line); c.Name != "rm" || len(c.Accesses) != 1 || c.Accesses[0].Path != "/srv/x" {
			t.Errorf("--%s: the image or command was misread:\n%s", o, render(Analyze(line, testEnv)))
		}
	}
	for _, o := range runValueOptions().short {
		if o == 'v' || o == 'w' {
			continue
		}
		line := "docker run -" + string(o) + " v -v /srv:/s alpine rm -rf /s/x"
		if c := last(t, line); c.Name != "rm" || len(c.Accesses) != 1 || c.Accesses[0].Path != "/srv/x" {
			t.Errorf("-%c: the image or command was misread:\n%s", o, render(Analyze(line, testEnv)))
		}
	}
}
