package hookrelay

import (
	"encoding/json"
	"testing"
	"time"
)

// wireParams are the params of a request line but the payload, as the daemon reads them.
type wireParams struct {
	Agent string   `json:"agent"`
	Args  []string `json:"args"`
	Cwd   string   `json:"cwd"`
	// Started is in Unix nanoseconds, left out when the request has no time.
	Started int64             `json:"started,omitempty"`
	Env     map[string]string `json:"env"`
}

// appendParamsCases are requests whose params appendParams must write as encoding/json
// does: every escape, invalid UTF-8, empty and nil lists and maps.
var appendParamsCases = []Request{
	{Agent: "claude-code", Args: []string{"--policy", "/p.yaml"}, Cwd: "/home/u/project", Env: map[string]string{"PATH": "/usr/bin", "HOME": "/home/u", "CI": "true"}},
	{Agent: "", Cwd: ""},
	{Agent: "a", Args: []string{}, Env: map[string]string{}},
	{Agent: "quote \" back\\slash", Cwd: "<tag> & amp", Args: []string{"\x00\x01\x1f\x7f", "\b\f\n\r\t"}},
	{Agent: "codex", Cwd: "/p", Started: time.Unix(1764150000, 123456789)},
	{Agent: "caf\u00e9 \U0001F600 \u2028\u2029", Cwd: "/bad\xff\xfeutf8\xc3", Env: map[string]string{"K\xff": "v\u2028"}},
}

func TestAppendParams(t *testing.T) {
	for _, req := range appendParamsCases {
		checkAppendParams(t, req)
	}
}

func FuzzAppendParams(f *testing.F) {
	for _, req := range appendParamsCases {
		arg := ""
		if len(req.Args) > 0 {
			arg = req.Args[0]
		}
		f.Add(req.Agent, arg, req.Cwd, req.Cwd)
	}
	f.Fuzz(func(t *testing.T, agent, arg, cwd, value string) {
		checkAppendParams(t, Request{Agent: agent, Args: []string{arg}, Cwd: cwd, Env: map[string]string{value: arg, "HOME": value}})
	})
}

func checkAppendParams(t *testing.T, req Request) {
	t.Helper()
	w := wireParams{Agent: req.Agent, Args: req.Args, Cwd: req.Cwd, Env: req.Env}
	if !req.Started.IsZero() {
		w.Started = req.Started.UnixNano()
	}
	want, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	got := append(appendParams([]byte("{"), req), '}')
	if string(got) != string(want) {
		t.Errorf("appendParams(%+q)\n got %s\nwant %s", req, got, want)
	}
}
