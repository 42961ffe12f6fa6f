package planted

import "testing"

func TestExtractContainers(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []string
	}{
		{"compose services", "docker-compose.yml", `services:
  web:
    build: .
    volumes: ["./:/app", "cache:/cache"]
    command: npm run dev
  agent:
    image: alpine
    privileged: true
    pid: host
    network_mode: host
    cap_add: [SYS_ADMIN]
    volumes:
      - type: bind
        source: /
        target: /host
        read_only: true
    entrypoint: ["sh", "-c"]
    command: ["echo hi"]
`, []string{
			"docker run --privileged --pid=host --network=host --cap-add SYS_ADMIN --mount type=bind,src=/,dst=/host,readonly alpine sh -c 'echo hi'",
			"docker run -v ./:/app -v cache:/cache -w /app compose-built-image npm run dev",
		}},
		{"compose working_dir", "compose.yaml", "services:\n  a:\n    image: node\n    working_dir: /src\n    volumes: ['.:/src']\n", []string{"docker run -v .:/src -w /src node"}},
		{"kubernetes pods", "k8s/app.yaml", `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  hostPID: true
  volumes:
  - name: root
    hostPath: {path: /}
  containers:
  - name: c
    image: alpine
    securityContext:
      privileged: true
      capabilities: {add: [NET_ADMIN]}
    volumeMounts:
    - {name: root, mountPath: /host, readOnly: true}
    command: [sh, -c]
    args: ["ls /host"]
---
apiVersion: v1
kind: Service
metadata: {name: s}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: j}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - {name: j, image: busybox, command: [date]}
`, []string{
			"docker run --pid=host --privileged --cap-add NET_ADMIN -v /:/host:ro alpine sh -c 'ls /host'",
			"docker run busybox date",
		}},
		{"kubernetes not YAML", "deploy/x.yaml", "a: [b\n", []string{"opaque"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, tt.path, tt.text, tt.want)
		})
	}
}
