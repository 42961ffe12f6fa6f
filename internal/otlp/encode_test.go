package otlp

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	metricsv1 "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

var testIdentity = Identity{ServiceVersion: "v9.9.9", HostName: "build-7", HostID: "0123456789abcdef0123456789abcdef", UserName: "dev"}

// attrMap flattens attributes into strings for comparison.
func attrMap(kvs []*commonv1.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonv1.AnyValue_StringValue:
			out[kv.GetKey()] = v.StringValue
		case *commonv1.AnyValue_IntValue:
			out[kv.GetKey()] = "int:" + itoa(v.IntValue)
		case *commonv1.AnyValue_BoolValue:
			if v.BoolValue {
				out[kv.GetKey()] = "bool:true"
			} else {
				out[kv.GetKey()] = "bool:false"
			}
		default:
			out[kv.GetKey()] = "?"
		}
	}
	return out
}

func itoa(n int64) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

func testRecords() []audit.Record {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	return []audit.Record{
		{Time: t0, Agent: "claude-code", Session: "s1", Class: "shell", Tool: "Bash", Decision: call.Deny, Rule: "no-rm-home", Reason: "deletes the home directory", Policy: "/p/moat.yaml", ManagedSerial: 7, Seq: 41, LatencyMS: 0.2,
			Args:     map[string]any{"command": "curl -H 'Authorization: Bearer SECRET-TOKEN-123' x"},
			Findings: []call.Finding{{ID: "secret.token", Evidence: "SECRET-TOKEN-123 in the command"}}},
		{Time: t0.Add(time.Second), Agent: "gemini-cli", Class: "file.read", Tool: "read_file", Decision: call.Allow, Reason: "", LatencyMS: 3},
		{Time: t0.Add(2 * time.Second), Agent: "claude-code", Class: "shell", Tool: "Bash", Decision: call.Ask, Rule: "ask-network", Reason: "fetches from the network", LatencyMS: 0.05},
		{Time: t0.Add(3 * time.Second), Agent: "claude-code", Class: "shell", Tool: "Bash", Decision: call.Deny, Failure: true, Reason: "the policy would not load", LatencyMS: 0.01},
	}
}

func TestEncodeLogs(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 1, 0, 0, time.UTC)
	body := encodeLogs(logGroups(testRecords(), testIdentity, now), "v9.9.9")
	if bytes.Contains(body, []byte("SECRET-TOKEN-123")) || bytes.Contains(body, []byte("Authorization")) {
		t.Fatal("the export holds the call's arguments or a finding's match")
	}
	var got logsv1.LogsData
	if err := proto.Unmarshal(body, &got); err != nil {
		t.Fatalf("the generated types cannot read the encoding: %v", err)
	}
	if n := len(got.ResourceLogs); n != 2 {
		t.Fatalf("%d resources, want one per agent (2)", n)
	}
	type want struct {
		sev   logsv1.SeverityNumber
		text  string
		body  string
		attrs map[string]string
	}
	wants := map[string][]want{
		"claude-code": {
			{logsv1.SeverityNumber_SEVERITY_NUMBER_WARN, "WARN", "deletes the home directory", map[string]string{"moat.decision": "deny", "moat.rule": "no-rm-home", "moat.tool": "Bash", "moat.class": "shell", "moat.session": "s1", "moat.policy": "/p/moat.yaml", "moat.managed_serial": "int:7", "moat.seq": "int:41", "moat.failure": "bool:false", "moat.agent": "claude-code"}},
			{logsv1.SeverityNumber_SEVERITY_NUMBER_INFO, "INFO", "fetches from the network", map[string]string{"moat.decision": "ask", "moat.rule": "ask-network"}},
			{logsv1.SeverityNumber_SEVERITY_NUMBER_ERROR, "ERROR", "the policy would not load", map[string]string{"moat.decision": "deny", "moat.failure": "bool:true"}},
		},
		"gemini-cli": {
			{logsv1.SeverityNumber_SEVERITY_NUMBER_DEBUG, "DEBUG", "allow", map[string]string{"moat.decision": "allow", "moat.tool": "read_file", "moat.class": "file.read", "moat.agent": "gemini-cli"}},
		},
	}
	for _, rl := range got.ResourceLogs {
		res := attrMap(rl.GetResource().GetAttributes())
		for k, v := range map[string]string{"service.name": "moat", "service.version": "v9.9.9", "host.name": "build-7", "host.id": testIdentity.HostID, "user.name": "dev"} {
			if res[k] != v {
				t.Errorf("resource %s = %q, want %q", k, res[k], v)
			}
		}
		agent := res["moat.agent"]
		ws, ok := wants[agent]
		if !ok {
			t.Fatalf("resource of agent %q", agent)
		}
		if len(rl.ScopeLogs) != 1 || rl.ScopeLogs[0].GetScope().GetName() != scopeNameMoat {
			t.Fatalf("scope logs: %v", rl.ScopeLogs)
		}
		recs := rl.ScopeLogs[0].LogRecords
		if len(recs) != len(ws) {
			t.Fatalf("%s: %d records, want %d", agent, len(recs), len(ws))
		}
		for i, w := range ws {
			r := recs[i]
			if r.SeverityNumber != w.sev || r.SeverityText != w.text || r.GetBody().GetStringValue() != w.body {
				t.Errorf("%s #%d: severity %v %q body %q; want %v %q %q", agent, i, r.SeverityNumber, r.SeverityText, r.GetBody().GetStringValue(), w.sev, w.text, w.body)
			}
			if r.TimeUnixNano == 0 || r.ObservedTimeUnixNano != uint64(now.UnixNano()) || r.EventName != eventDecision {
				t.Errorf("%s #%d: times %d %d event %q", agent, i, r.TimeUnixNano, r.ObservedTimeUnixNano, r.EventName)
			}
			attrs := attrMap(r.Attributes)
			for k, v := range w.attrs {
				if attrs[k] != v {
					t.Errorf("%s #%d: %s = %q, want %q", agent, i, k, attrs[k], v)
				}
			}
			if i > 0 && attrs["moat.seq"] != "" {
				t.Errorf("%s #%d: moat.seq %s for a record without one", agent, i, attrs["moat.seq"])
			}
		}
	}
}

func TestEncodeMetrics(t *testing.T) {
	agg := newAggregate()
	for _, r := range testRecords() {
		agg.add(r)
	}
	start := time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)
	now := start.Add(time.Hour)
	var got metricsv1.MetricsData
	if err := proto.Unmarshal(encodeMetrics(agg.groups(testIdentity, 3), "v9.9.9", start, now), &got); err != nil {
		t.Fatalf("the generated types cannot read the encoding: %v", err)
	}
	counts := map[string]int64{}    // agent/decision/class/failure
	hists := map[string][2]uint64{} // agent/class: count, sum of buckets
	var dropped int64 = -1
	for _, rm := range got.ResourceMetrics {
		res := attrMap(rm.GetResource().GetAttributes())
		if res["host.id"] != testIdentity.HostID || res["service.name"] != "moat" {
			t.Errorf("resource %v", res)
		}
		for _, m := range rm.ScopeMetrics[0].Metrics {
			switch m.Name {
			case "moat.otlp.dropped":
				dropped = m.GetSum().DataPoints[0].GetAsInt()
			case "moat.decisions":
				s := m.GetSum()
				if !s.IsMonotonic || s.AggregationTemporality != metricsv1.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
					t.Errorf("moat.decisions: monotonic %v temporality %v", s.IsMonotonic, s.AggregationTemporality)
				}
				for _, p := range s.DataPoints {
					a := attrMap(p.Attributes)
					if p.StartTimeUnixNano != uint64(start.UnixNano()) || p.TimeUnixNano != uint64(now.UnixNano()) {
						t.Errorf("times %d %d", p.StartTimeUnixNano, p.TimeUnixNano)
					}
					counts[res["moat.agent"]+"/"+a["moat.decision"]+"/"+a["moat.class"]+"/"+a["moat.failure"]] = p.GetAsInt()
				}
			case "moat.decision.duration":
				h := m.GetHistogram()
				if m.Unit != "s" || h.AggregationTemporality != metricsv1.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
					t.Errorf("histogram unit %q temporality %v", m.Unit, h.AggregationTemporality)
				}
				for _, p := range h.DataPoints {
					if len(p.BucketCounts) != len(p.ExplicitBounds)+1 || len(p.ExplicitBounds) != len(latencyBounds) {
						t.Fatalf("%d buckets for %d bounds", len(p.BucketCounts), len(p.ExplicitBounds))
					}
					var n uint64
					for _, c := range p.BucketCounts {
						n += c
					}
					hists[res["moat.agent"]+"/"+attrMap(p.Attributes)["moat.class"]] = [2]uint64{p.Count, n}
					if res["moat.agent"] == "gemini-cli" && (math.Abs(p.GetSum()-0.003) > 1e-12 || p.GetMin() != 0.003 || p.GetMax() != 0.003 || p.BucketCounts[8] != 1) {
						t.Errorf("gemini-cli latency: sum %v min %v max %v buckets %v", p.GetSum(), p.GetMin(), p.GetMax(), p.BucketCounts)
					}
				}
			default:
				t.Errorf("metric %s", m.Name)
			}
		}
	}
	wantCounts := map[string]int64{
		"claude-code/deny/shell/bool:false": 1, "claude-code/ask/shell/bool:false": 1, "claude-code/deny/shell/bool:true": 1,
		"gemini-cli/allow/file.read/bool:false": 1,
	}
	if len(counts) != len(wantCounts) {
		t.Errorf("counters %v, want %v", counts, wantCounts)
	}
	for k, v := range wantCounts {
		if counts[k] != v {
			t.Errorf("counter %s = %d, want %d", k, counts[k], v)
		}
	}
	if hists["claude-code/shell"] != [2]uint64{3, 3} || hists["gemini-cli/file.read"] != [2]uint64{1, 1} {
		t.Errorf("histograms %v", hists)
	}
	if dropped != 3 {
		t.Errorf("moat.otlp.dropped = %d, want 3", dropped)
	}
}

// A body longer than 127 bytes needs a length of two bytes or more: the encoder moves it.
func TestMessageLongBody(t *testing.T) {
	for _, n := range []int{0, 1, 126, 127, 128, 300, 20000} {
		body := strings.Repeat("x", n)
		enc := encodeLogs([]resourceLogs{{records: []logRecord{{body: body}}}}, "")
		var got logsv1.LogsData
		if err := proto.Unmarshal(enc, &got); err != nil {
			t.Fatalf("body of %d bytes: %v", n, err)
		}
		if b := got.ResourceLogs[0].ScopeLogs[0].LogRecords[0].GetBody().GetStringValue(); b != body {
			t.Errorf("body of %d bytes read back as %d bytes", n, len(b))
		}
	}
}
