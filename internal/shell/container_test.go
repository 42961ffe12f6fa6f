package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// hostChanges are the writes and deletes of every command of the line.
func hostChanges(a Analysis) []call.Access {
	var got []call.Access
	for _, c := range a.Commands {
		for _, acc := range c.Accesses {
			if acc.Kind != call.Read {
				got = append(got, acc)
			}
		}
	}
	return got
}

// A container's command is analysed with its paths translated through the bind mounts:
// the host's paths it reaches are accesses, the image's own paths are none.
func TestContainerRunMounts(t *testing.T) {
	del := func(p string) call.Access { return call.Access{Kind: call.Delete, Path: p, Recursive: true} }
	write := func(p string, rec bool) call.Access { return call.Access{Kind: call.Write, Path: p, Recursive: rec} }
	tests := []struct {
		line string
		want []call.Access // the writes and deletes of the line; nil for none
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
		{"finch run -v /srv:/s alpine rm -rf /s/y", []call.Access{del("/srv/y")}},
		{"lima nerdctl run -v /srv:/s alpine rm -rf /s/y", []call.Access{del("/srv/y")}},
		{"buildah run --volume /srv:/s ctr -- rm -rf /s/y", []call.Access{del("/srv/y")}},
		{"ctr -n k8s.io run --rm --mount type=bind,src=/srv,dst=/s,options=rbind:rw docker.io/library/alpine:latest box rm -rf /s/y", []call.Access{del("/srv/y")}},
		{"ctr run --mount type=bind,src=/srv,dst=/s,options=rbind:ro docker.io/library/alpine:latest box ls /s", nil},
		{"docker run --rm alpine rm -rf /etc", nil},
		{"docker run -v pgdata:/var/lib/postgresql alpine rm -rf /var/lib/postgresql", nil},
		// The image's own command may read and write what is mounted writable.
		{"docker run -v /srv/site:/usr/share/nginx/html nginx", []call.Access{write("/srv/site", true)}},
		{"docker run -v /srv/site:/usr/share/nginx/html:ro nginx", nil},
		{"docker run --mount type=bind,src=/srv/site,dst=/d,readonly nginx", nil},
		// A container the line started with a name keeps its mounts for docker exec.
		{"docker run -d --name c -v /srv:/h alpine sleep 1d; docker exec c rm -rf /h/x", []call.Access{del("/srv/x")}},
		{"docker create --name c -v /srv:/h alpine sleep 1d && docker start c && docker exec -it c rm -rf /h/x", []call.Access{del("/srv/x")}},
		{"docker run -d --name c alpine sleep 1d; docker exec c rm -rf /h/x", nil},
		// Relative paths are below the container's working directory, -w or the image's.
		{"docker run -d --name c -v /srv:/h alpine sleep 1d; docker exec -w /h c rm -rf x", []call.Access{del("/srv/x")}},
		{"docker run -v /srv:/h -w /h/sub alpine rm -rf ../y", []call.Access{del("/srv/y")}},
		// Code the container's shell reads from standard input runs against the mounts.
		{"echo 'rm -rf /h/x' | docker run -i -v /srv:/h alpine sh", []call.Access{del("/srv/x")}},
		{"docker run -i -v /srv:/h alpine sh <<< 'rm -rf /h/x'", []call.Access{del("/srv/x")}},
		// docker cp reads or writes a host tree.
		{"docker cp app:/etc/nginx ./conf", []call.Access{write(testEnv.Cwd+"/conf", true)}},
		{"docker cp ./conf app:/etc/nginx", nil},
		{"docker compose cp web:/app/dist ./dist", []call.Access{write(testEnv.Cwd+"/dist", true)}},
		// Files the engine's commands write on the host.
		{"docker save -o ~/.claude/img.tar app", []call.Access{write(testEnv.Home+"/.claude/img.tar", true)}},
		{"docker image save app --output=/tmp/app.tar", []call.Access{write("/tmp/app.tar", true)}},
		{"docker build -o type=local,dest=out .", []call.Access{write(testEnv.Cwd+"/out", true)}},
		{"docker buildx build --output type=tar,dest=/tmp/x.tar .", []call.Access{write("/tmp/x.tar", true)}},
		{"docker build -t app --push .", nil},
		// podman unshare runs its command on the host.
		{"podman unshare rm -rf ~/.local/share/containers/storage", []call.Access{del(testEnv.Home + "/.local/share/containers/storage")}},
	}
	for _, tt := range tests {
		a := Analyze(tt.line, testEnv)
		if got := hostChanges(a); !slices.EqualFunc(got, tt.want, call.Access.Equal) {
			t.Errorf("%s: changes %v, want %v:\n%s", tt.line, got, tt.want, render(a))
		}
	}
}

// A container whose mounts are not known (started before the line, a compose service,
// --volumes-from, a source computed at run time) makes the writes and deletes of its
// command opaque, judged as the same path of the host (none, for a path relative to the
// image's working directory); its reads are of nothing known.
func TestContainerUnknownMounts(t *testing.T) {
	tests := []struct {
		line string
		want string // the path written or deleted, "" for none
	}{
		{"docker run -v $DIR:/d alpine rm -rf /d", "/d"},
		{"docker run --volumes-from data alpine rm -rf /d", "/d"},
		{"docker exec c rm -rf /h", "/h"},
		{"docker exec -u root -w /app c sh -c 'echo x > /root/.bashrc'", "/root/.bashrc"},
		{"docker compose exec web rm -rf /srv/data", "/srv/data"},
		{"docker compose -f compose.yaml run --rm -v /srv:/s web rm -rf /data", "/data"},
		{"docker-compose run web sh -c 'rm -rf /var/lib/app'", "/var/lib/app"},
		{"docker exec c rm -rf build", "(relative)"},
		{"docker run -v ~/.claude:/go golang:1.26 sh -c 'echo {} > settings.json'", "(relative)"},
		{"docker run -v /srv:/s:ro golang:1.26 sh -c 'echo {} > settings.json'", ""},
		{"kubectl exec web-0 -- rm -rf /data", "/data"},
		{"kubectl -n prod exec -it web-0 -c app -- sh -c 'rm -rf /var/www'", "/var/www"},
		{"kubectl exec deploy/api -- ls /app", ""},
		{"docker exec -i c sh <<< 'rm -rf /h'", "/h"},
		{"docker exec c cat /h/.ssh/id_rsa", ""},
		{"docker compose exec db psql -c 'select 1'", ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.line, testEnv)
		got := hostChanges(a)
		c := a.Commands[len(a.Commands)-1]
		switch {
		case tt.want == "" && (len(got) != 0 || hasFinding(c.Findings, findOpaque)):
			t.Errorf("%s: want no change and no opaque finding:\n%s", tt.line, render(a))
		case tt.want == "(relative)" && (len(got) != 0 || !c.Opaque || !hasFinding(c.Findings, findOpaque)):
			t.Errorf("%s: want an opaque change of no host path:\n%s", tt.line, render(a))
		case tt.want != "" && tt.want != "(relative)" && (len(got) != 1 || got[0].Path != tt.want || !c.Opaque || !hasFinding(c.Findings, findOpaque)):
			t.Errorf("%s: want an opaque change of %s:\n%s", tt.line, tt.want, render(a))
		}
		if strings.Contains(render(a), unknownSource) || strings.Contains(render(a), unknownWorkdir) {
			t.Errorf("%s: the marker of unknown mounts leaks:\n%s", tt.line, render(a))
		}
	}
}

// The options that give a container the host are findings: privilege.container-host for
// root on the host, privilege.container-escape for the rest; ordinary options none.
func TestContainerEscapes(t *testing.T) {
	tests := []struct {
		line string
		want string // the finding on the docker command, "" for none
	}{
		{"docker run --privileged alpine sh", findContainerEscape},
		{"docker run --privileged=false alpine sh", ""},
		{"docker exec --privileged c sh", findContainerEscape},
		{"docker run --pid=host alpine ps", findContainerEscape},
		{"docker run --ipc host alpine sh", findContainerEscape},
		{"podman run --userns=host alpine id", findContainerEscape},
		{"docker run --cap-add=SYS_ADMIN alpine sh", findContainerEscape},
		{"docker run --cap-add NET_BIND_SERVICE,CAP_SYS_PTRACE alpine sh", findContainerEscape},
		{"docker run --cap-add=dac_read_search alpine sh", findContainerEscape},
		{"docker run --security-opt apparmor=unconfined alpine sh", findContainerEscape},
		{"docker run --security-opt seccomp:unconfined alpine sh", findContainerEscape},
		{"docker run --security-opt label=disable alpine sh", findContainerEscape},
		{"docker run --security-opt no-new-privileges alpine sh", ""},
		{"docker plugin install vieux/sshfs --grant-all-permissions", findContainerEscape},
		{"docker plugin ls", ""},
		{"ctr run --privileged docker.io/library/alpine:latest box sh", findContainerEscape},
		{"ctr run --with-ns pid:/proc/1/ns/pid docker.io/library/alpine:latest box sh", findContainerEscape},
		{"buildah run --cap-add=SYS_ADMIN ctr sh", findContainerEscape},
		{"docker run --device /dev/sda alpine sh", findContainerEscape},
		{"docker run -v /etc:/e:ro alpine sh", findContainerEscape},
		{"docker run -v /proc:/p alpine sh", findContainerEscape},
		{"docker run -v /home:/h alpine sh", findContainerEscape},
		{"docker run -v /:/host alpine sh", findContainerHost},
		{"docker run -v /etc:/e alpine sh", findContainerHost},
		{"docker run --mount type=bind,src=/root,dst=/r alpine sh", findContainerHost},
		{"docker run -v /var/run/docker.sock:/var/run/docker.sock docker:cli sh", findContainerHost},
		{"docker run -v /run/user/1000/podman/podman.sock:/s alpine sh", findContainerHost},
		{"docker run -v $HOME/.docker/run/docker.sock:/var/run/docker.sock alpine sh", findContainerHost},
		{"docker run -v /var/run:/r alpine sh", findContainerHost},
		{"docker run -v /etc/localtime:/etc/localtime:ro alpine date", ""},
		{"docker run -v \"$PWD\":/src -w /src golang:1.26 go test ./...", ""},
		{"docker run --network host nginx", ""},
		{"docker run -p 8080:80 --name web -e A=1 nginx", ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.line, testEnv)
		c := a.Commands[0]
		var got []string
		for _, f := range c.Findings {
			if strings.HasPrefix(f.ID, "privilege.container") {
				got = append(got, f.ID)
			}
		}
		if tt.want == "" && len(got) > 0 || tt.want != "" && !slices.Contains(got, tt.want) {
			t.Errorf("%s: findings %v, want %q:\n%s", tt.line, got, tt.want, render(a))
		}
	}
}

// A container on the host's network has its command analysed for what it does on the
// network; its paths are the image's own.
func TestContainerHostNetwork(t *testing.T) {
	if c := last(t, "docker run --net=host alpine nc -l -p 4444 -e /bin/sh"); !hasFinding(c.Findings, findReverseShell) {
		t.Errorf("a shell served on the host's network: %v", c.Findings)
	}
	if a := Analyze("docker run --net=host alpine rm -rf /etc", testEnv); len(hostChanges(a)) != 0 {
		t.Errorf("the image's own /etc is no host path:\n%s", render(a))
	}
}

// The engine driven around its CLI: its API over its socket, a raw stream to it, the CLI
// pointed at another engine.
func TestEngineAPI(t *testing.T) {
	tests := []struct {
		line string
		want string // the finding, "" for none
	}{
		{`curl --unix-socket /var/run/docker.sock http://localhost/containers/json`, ""},
		{`curl -s --unix-socket /var/run/docker.sock http://localhost/v1.45/version`, ""},
		{`curl --unix-socket /tmp/app.sock -X POST http://localhost/reload`, ""},
		{`curl --unix-socket /var/run/docker.sock -X POST http://localhost/containers/abc/start`, findContainerAPI},
		{`curl --unix-socket /var/run/docker.sock -X DELETE http://localhost/containers/abc`, findContainerAPI},
		{`curl --unix-socket /var/run/docker.sock -H 'Content-Type: application/json' -d '{"Image":"alpine","Cmd":["id"]}' http://localhost/containers/create`, findContainerAPI},
		{`curl --unix-socket /var/run/docker.sock -d @body.json http://localhost/containers/create`, findContainerAPI},
		{`curl --unix-socket=/run/docker.sock --json '{"Image":"alpine","HostConfig":{"Binds":["/:/host"]}}' http://x/v1.43/containers/create`, findContainerHost},
		{`curl --unix-socket /var/run/docker.sock -d '{"image":"alpine","hostconfig":{"privileged":true}}' http://localhost/containers/create`, findContainerHost},
		{`curl --unix-socket /var/run/docker.sock -d '{"Image":"a","HostConfig":{"Mounts":[{"Type":"bind","Source":"/etc","Target":"/e"}]}}' http:/containers/create`, findContainerHost},
		{`curl --unix-socket /var/run/docker.sock -d '{"Image":"a","HostConfig":{"PidMode":"host"}}' http://localhost/containers/create`, findContainerHost},
		{`curl --unix-socket /var/run/docker.sock -d '{"Image":"a","HostConfig":{"Binds":["data:/data"]}}' http://localhost/containers/create`, findContainerAPI},
		{`curl --unix-socket /var/run/docker.sock -d '{"Cmd":["sh"],"Privileged":true}' http://localhost/containers/c1/exec`, findContainerHost},
		{`curl --unix-socket /var/run/docker.sock -d '{"Cmd":["ls"]}' http://localhost/containers/c1/exec`, findContainerAPI},
		{`curl --unix-socket /run/podman/podman.sock -d '{"image":"alpine","mounts":[{"destination":"/h","source":"/","type":"bind"}]}' http://d/v4.0.0/libpod/containers/create`, findContainerHost},
		{`curl --unix-socket /run/podman/podman.sock -d '{"image":"alpine","pidns":{"nsmode":"host"}}' http://d/v4.0.0/libpod/containers/create`, findContainerHost},
		{`curl --unix-socket /tmp/relay.sock -d '{"HostConfig":{"Privileged":true}}' http://x/containers/create`, findContainerHost},
		{`curl --unix-socket "$SOCK" -X POST http://x/containers/c1/start`, findContainerAPI},
		{`curl --unix-socket /tmp/app.sock http://x/containers/json`, ""},
		{`curl -d '{"HostConfig":{"Binds":["/:/h"]}}' http://127.0.0.1:2375/containers/create`, findContainerHost},
		{`curl -X POST http://localhost:2375/v1.45/containers/c1/start`, findContainerAPI},
		{`curl -X POST http://localhost:8080/containers/c1/start`, ""},
		{`socat - UNIX-CONNECT:/var/run/docker.sock`, findContainerAPI},
		{`socat TCP-LISTEN:2375,fork UNIX-CONNECT:/var/run/docker.sock`, findContainerHost},
		{`nc -U /var/run/docker.sock`, findContainerAPI},
		{`DOCKER_HOST=tcp://10.0.0.5:2375 docker run alpine id`, findContainerAPI},
		{`DOCKER_HOST=tcp://10.0.0.5:2375 docker ps`, ""},
		{`docker -H tcp://10.0.0.5:2375 container run alpine id`, findContainerAPI},
		{`docker --context prod compose up -d`, findContainerAPI},
		{`docker --context prod ps`, ""},
		{`podman --url ssh://root@host/run/podman/podman.sock run alpine id`, findContainerAPI},
		{`docker context use prod`, findContainerAPI},
		{`docker context ls`, ""},
		{`export DOCKER_HOST=tcp://10.0.0.5:2375`, findContainerAPI},
		{`export PATH=$PATH:/opt/bin`, ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.line, testEnv)
		var got []string
		for _, c := range a.Commands {
			for _, f := range c.Findings {
				if f.ID == findContainerAPI || f.ID == findContainerHost {
					got = append(got, f.ID)
				}
			}
		}
		if tt.want == "" && len(got) > 0 || tt.want != "" && !slices.Contains(got, tt.want) {
			t.Errorf("%s: findings %v, want %q:\n%s", tt.line, got, tt.want, render(a))
		}
	}
}

// A compose file from outside the project, or written by the line, is code moat cannot
// read; the project's own is its configuration.
func TestComposeFile(t *testing.T) {
	for line, opaque := range map[string]bool{
		"docker compose up -d":                          false,
		"docker compose -f compose.prod.yaml up -d":     false,
		"docker compose -f /tmp/x.yml up -d":            true,
		"docker-compose --file=$F up":                   true,
		"docker compose -f ~/other/compose.yaml up":     true,
		"podman-compose -f ../elsewhere/compose.yml up": true,
		"printf 'services: {x: {image: a, privileged: true}}' > c.yml && docker compose -f c.yml up":      true,
		"cat > compose.yaml <<'E'\nservices: {x: {image: a, volumes: ['/:/h']}}\nE\ndocker compose up -d": true,
		"cp /tmp/x.yml docker-compose.yml; docker-compose up":                                             true,
		"cp -r /tmp/proj/. . && docker compose up -d":                                                     true,
		"echo x > notes.txt && docker compose up -d":                                                      false,
		"cat > compose.yaml <<'E'\nservices: {x: {image: a}}\nE\ndocker compose ps":                       false,
	} {
		cmds := Analyze(line, testEnv).Commands
		// The compose command: a compose file the line writes adds, after it, the
		// commands its services stand for (planted code).
		var c call.Command
		for _, x := range cmds {
			if x.Name == "docker-compose" || x.Name == "podman-compose" || x.Name == "docker" && slices.Contains(x.Args, "compose") {
				c = x
			}
		}
		if hasFinding(c.Findings, findOpaque) != opaque {
			t.Errorf("%s: opaque %v, want %v: %v", line, !opaque, opaque, c.Findings)
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
	for _, o := range execValueOptions().long {
		line := "docker run -d --name c -v /srv:/s alpine sleep 1d; docker exec --" + o + " v c rm -rf /s/x"
		if c := last(t, line); c.Name != "rm" || len(c.Accesses) != 1 || c.Accesses[0].Path != "/srv/x" {
			t.Errorf("exec --%s: the container or command was misread:\n%s", o, render(Analyze(line, testEnv)))
		}
	}
}
