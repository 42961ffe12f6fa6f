package decide

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestAnswered(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"an answer", &remoteError{msg: "no policy"}, true},
		{"an unknown policy", fmt.Errorf("deciding: %w", &remoteError{msg: "x", code: CodeUnknownPolicy}), true},
		{"a closed connection", fmt.Errorf("daemon request decide: %w", io.ErrUnexpectedEOF), false},
		{"a deadline", context.DeadlineExceeded, false},
		{"nil", nil, false},
		{"another error", errors.New("boom"), false},
	}
	for _, tt := range tests {
		if got := Answered(tt.err); got != tt.want {
			t.Errorf("%s: Answered = %v, want %v", tt.name, got, tt.want)
		}
	}
}
