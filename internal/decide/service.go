package decide

import (
	"context"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/engine"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
)

// Service decides calls, tool outputs and prompts, and records decisions. Whatever the
// implementation, a call it cannot decide is never allowed: an error is returned, for the
// caller's fail mode (see FailDecision).
type Service interface {
	// Lookup finds and compiles the policy for a scope, and says what its entry points
	// need to know of it before deciding: its fail mode, hook and output settings.
	Lookup(ctx context.Context, s Scope) (Policy, error)
	// Decide decides the calls of one event; the strictest decision answers for all.
	// With Record set, each decision is recorded before Decide returns.
	Decide(ctx context.Context, req CallRequest) (CallResult, error)
	// DecideOutput reads a tool's output for prompt injection and credentials, under the
	// policy's output section, and records what it found.
	DecideOutput(ctx context.Context, req OutputRequest) (OutputResult, error)
	// DecidePrompt reads a prompt the user submits for Unicode smuggling.
	DecidePrompt(ctx context.Context, req PromptRequest) (Outcome, error)
	// Record records a decision completed outside the service: a call the user approved
	// on a terminal, a tool the MCP proxy hid from a listing. A failure to record is
	// returned; it never changes the decision.
	Record(ctx context.Context, req RecordRequest) error
	// RecordFailure records a decision that could not be made, as the fail mode answered.
	RecordFailure(ctx context.Context, f Failure) error
}

// Scope says which policy applies to a call.
type Scope struct {
	// Flag is the policy file named on the command line, or "".
	Flag string `json:"flag,omitempty"`
	// Cwd is the absolute directory the call runs in.
	Cwd string `json:"cwd"`
	// Project is the session's project directory as the agent names it, or "": the
	// project's policy governs a call run outside it.
	Project string `json:"project,omitempty"`
}

// Policy is what an entry point knows of the policy in force.
type Policy struct {
	// Key names the compiled policy in the requests that follow.
	Key string `json:"key"`
	// Name is what records and messages call the policy (see source.Source.Name).
	Name string `json:"name"`
	// Path is the policy file, or "" for the embedded policy.
	Path         string                   `json:"path,omitempty"`
	Fail         policy.FailMode          `json:"fail"`
	Hooks        policy.Hooks             `json:"hooks"`
	Output       policy.Output            `json:"output"`
	ChangedTools policy.ChangedToolAction `json:"changed_tools"`
	// ApprovalQueue is the policy's approvals.queue: which asks wait in moat's approval
	// queue (an entry point that could ask on a terminal and finds none needs it).
	ApprovalQueue policy.ApprovalQueue `json:"approval_queue,omitempty"`
	// Skipped are the project policies whose current content is not in force.
	Skipped []source.Skipped `json:"skipped,omitempty"`
}

// FailOpen reports whether a call that cannot be decided under p goes ahead.
func (p Policy) FailOpen() bool { return p.Fail == policy.FailOpen }

// CallRequest asks for the decision on the calls of one event.
type CallRequest struct {
	Policy string `json:"policy"` // Policy.Key
	// Event is the event recorded with the decisions ("PreToolUse", "run", "mcp …").
	Event string      `json:"event"`
	Calls []call.Call `json:"calls"`
	// Project is the session's project, for calls that name none; "" means the
	// repository around each call's directory (ProjectRoot).
	Project string `json:"project,omitempty"`
	// Explain asks for the trace of the first call.
	Explain bool `json:"explain,omitempty"`
	// Record records each decision before the answer.
	Record bool `json:"record,omitempty"`
	// Hook, when the answer goes to an agent's hook, says whether an ask can reach the
	// user there: the result then holds the hook's answer, and the records what the
	// agent was told.
	Hook *HookDelivery `json:"hook,omitempty"`
	// Unattended, for an entry point other than a hook, says why an ask cannot reach the
	// user there (the MCP proxy): the policy's approvals section may then hold it in
	// moat's approval queue (see Options.Approvals).
	Unattended string `json:"unattended,omitempty"`
}

// HookDelivery is what decides the form of a hook's answer besides the decision.
type HookDelivery struct {
	// Unattended, when set, says why nobody can answer an ask: an ask is then a deny.
	Unattended string `json:"unattended,omitempty"`
	// AskHolds says whether the agent puts an ask to the user.
	AskHolds bool `json:"ask_holds"`
	// NoAsk, when AskHolds is false, says why the agent does not (hook.Adapter.AskHolds).
	NoAsk string `json:"no_ask,omitempty"`
}

// CallResult is the decision on an event's calls.
type CallResult struct {
	// Calls are the calls as decided (their project resolved), and Decisions theirs.
	Calls     []call.Call     `json:"calls"`
	Decisions []call.Decision `json:"decisions"`
	// Decision is the strictest of Decisions: the first among the most restrictive.
	Decision call.Decision `json:"decision"`
	// Trace is how the first call was decided, with Explain.
	Trace *Trace `json:"trace,omitempty"`
	// Answer is the hook's answer, with Hook.
	Answer *HookAnswer `json:"answer,omitempty"`
	// Held, when set, says the ask is held in moat's approval queue: the call is refused
	// until the user approves it, as Decision's reason says.
	Held *Held `json:"held,omitempty"`
	// NotRecorded holds a failure for each record that did not reach the log.
	NotRecorded []*RecordError `json:"not_recorded,omitempty"`
}

// Trace is the explanation of one decision: each unit, each rule tried, the findings.
type Trace = engine.Trace

// TestResult is the outcome of one of a policy's own tests.
type TestResult = engine.TestResult

// HookAnswer is what a hook tells its agent about a tool call.
type HookAnswer struct {
	Verdict call.Verdict `json:"verdict"`
	// Defer says moat has no opinion: the agent's own permission system decides.
	Defer  bool   `json:"defer,omitempty"`
	Reason string `json:"reason"`
	// Form is what the agent was told when that is not the decision ("defer", or "deny"
	// for an ask that cannot reach anyone); it is what the records hold as the answer.
	Form string `json:"form,omitempty"`
}

// OutputRequest asks for the reading of a tool's output.
type OutputRequest struct {
	Policy string `json:"policy"`
	Event  string `json:"event"`
	// Call is the call whose output this is.
	Call call.Call  `json:"call"`
	Text string     `json:"text"`
	Form OutputForm `json:"form"`
	// Record records what was found (nothing is recorded of a clean output).
	Record bool `json:"record,omitempty"`
}

// OutputResult is what was found in a tool's output.
type OutputResult struct {
	Outcome
	NotRecorded *RecordError `json:"not_recorded,omitempty"`
}

// PromptRequest asks for the reading of a prompt.
type PromptRequest struct {
	Text string `json:"text"`
}

// RecordRequest records a decision made outside Decide.
type RecordRequest struct {
	Policy   string        `json:"policy"`
	Event    string        `json:"event"`
	Call     call.Call     `json:"call"`
	Decision call.Decision `json:"decision"`
	// Answer is what the agent was told, when that is not the decision.
	Answer string `json:"answer,omitempty"`
}

// Failure is a decision that could not be made.
type Failure struct {
	Agent call.Agent `json:"agent,omitempty"`
	Event string     `json:"event"`
	// Call is whatever the event said of the call, which may be only partly read.
	Call call.Call `json:"call"`
	// Cwd is the event's directory, for a call that names none.
	Cwd string `json:"cwd,omitempty"`
	// Policy names the policy in force, or "" when it could not be loaded.
	Policy string `json:"policy,omitempty"`
	Reason string `json:"reason"`
	// Open says the policy's fail mode let the call go ahead.
	Open bool `json:"open,omitempty"`
}

// RecordError is a record that did not reach the audit log.
type RecordError struct {
	Message string `json:"message"`
	// Spooled says the record was kept in a spool file, to be merged by the next write.
	Spooled bool `json:"spooled,omitempty"`
}

func (e *RecordError) Error() string { return e.Message }

// Unwrap makes a spooled record's error audit.ErrSpooled to errors.Is.
func (e *RecordError) Unwrap() error {
	if e.Spooled {
		return audit.ErrSpooled
	}
	return nil
}

// recordError is err as a RecordError, or nil.
func recordError(err error) *RecordError {
	if err == nil {
		return nil
	}
	return &RecordError{Message: err.Error(), Spooled: errorsIs(err, audit.ErrSpooled)}
}
