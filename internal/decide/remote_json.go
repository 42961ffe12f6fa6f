package decide

import (
	"encoding/json"

	"github.com/moatdev/moat/internal/call"
)

// A clean Outcome holds no decision, and a zero Decision is no verdict: it cannot be
// encoded (call.Verdict refuses to be written as something a reader might take for an
// allow). On the wire, an Outcome therefore carries its decision only when it has one.

// outcomeJSON is the JSON form of an Outcome.
type outcomeJSON struct {
	Found    bool           `json:"found"`
	Decision *call.Decision `json:"decision,omitempty"`
	Redact   bool           `json:"redact,omitempty"`
}

func (o Outcome) toJSON() outcomeJSON {
	w := outcomeJSON{Found: o.Found, Redact: o.Redact}
	if o.Found || o.Decision.Verdict != 0 {
		d := o.Decision
		w.Decision = &d
	}
	return w
}

func (w outcomeJSON) outcome() Outcome {
	o := Outcome{Found: w.Found, Redact: w.Redact}
	if w.Decision != nil {
		o.Decision = *w.Decision
	}
	return o
}

// MarshalJSON encodes the outcome, without a decision when nothing was found.
func (o Outcome) MarshalJSON() ([]byte, error) { return json.Marshal(o.toJSON()) }

// UnmarshalJSON decodes what MarshalJSON encodes.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	var w outcomeJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*o = w.outcome()
	return nil
}

// outputResultJSON is the JSON form of an OutputResult: its outcome's fields, and the
// record's failure. (Outcome's methods would otherwise stand for the whole result.)
type outputResultJSON struct {
	outcomeJSON
	NotRecorded *RecordError `json:"not_recorded,omitempty"`
}

// MarshalJSON encodes the result as its outcome's fields and not_recorded.
func (r OutputResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(outputResultJSON{outcomeJSON: r.Outcome.toJSON(), NotRecorded: r.NotRecorded})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (r *OutputResult) UnmarshalJSON(b []byte) error {
	var w outputResultJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = OutputResult{Outcome: w.outcome(), NotRecorded: w.NotRecorded}
	return nil
}
