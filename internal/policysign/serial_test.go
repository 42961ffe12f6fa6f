package policysign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	keyA = "0123456789abcdef"
	keyB = "fedcba9876543210"
)

func TestSerialStore(t *testing.T) {
	type step struct {
		accept bool // Accept, else Check
		key    string
		serial int64
		want   error // nil: accepted
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "first serial of a key", steps: []step{{false, keyA, 1, nil}, {true, keyA, 1, nil}}},
		{name: "counting up", steps: []step{{true, keyA, 2, nil}, {false, keyA, 3, nil}, {true, keyA, 3, nil}, {true, keyA, 10, nil}}},
		{name: "the same serial again", steps: []step{{true, keyA, 5, nil}, {false, keyA, 5, nil}, {true, keyA, 5, nil}}},
		{name: "rollback", steps: []step{{true, keyA, 5, nil}, {false, keyA, 4, ErrRollback}, {true, keyA, 1, ErrRollback}, {false, keyA, 5, nil}}},
		{name: "keys apart", steps: []step{{true, keyA, 9, nil}, {false, keyB, 1, nil}, {true, keyB, 1, nil}, {false, keyA, 8, ErrRollback}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSerialStore(filepath.Join(t.TempDir(), "state", "policy-serials.json"))
			for i, st := range tt.steps {
				var err error
				if st.accept {
					err = s.Accept(st.key, st.serial)
				} else {
					err = s.Check(st.key, st.serial)
				}
				if !errors.Is(err, st.want) || (st.want == nil && err != nil) {
					t.Fatalf("step %d (%+v): error = %v, want %v", i, st, err, st.want)
				}
			}
		})
	}
}

func TestSerialStoreRefusedSerialKeepsTheHighest(t *testing.T) {
	s := NewSerialStore(filepath.Join(t.TempDir(), "policy-serials.json"))
	if err := s.Accept(keyA, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.Accept(keyA, 3); !errors.Is(err, ErrRollback) {
		t.Fatalf("Accept(3) after 7: %v", err)
	}
	if n, ok, err := s.Highest(keyA); n != 7 || !ok || err != nil {
		t.Fatalf("Highest = %d, %v, %v; want 7", n, ok, err)
	}
}

func TestSerialStoreBadInput(t *testing.T) {
	s := NewSerialStore(filepath.Join(t.TempDir(), "policy-serials.json"))
	for _, tt := range []struct {
		key    string
		serial int64
	}{{keyA, 0}, {keyA, -1}, {"", 1}, {"0123", 1}, {"0123456789ABCDEF", 1}, {"../../etc/passwd", 1}} {
		if err := s.Accept(tt.key, tt.serial); err == nil {
			t.Errorf("Accept(%q, %d) succeeded", tt.key, tt.serial)
		}
		if err := s.Check(tt.key, tt.serial); err == nil {
			t.Errorf("Check(%q, %d) succeeded", tt.key, tt.serial)
		}
	}
}

func TestSerialStoreCorruptIsRefusedNotReset(t *testing.T) {
	many := make([]string, maxSerialKeys+1)
	for i := range many {
		many[i] = fmt.Sprintf("%q: 1", fmt.Sprintf("%016x", i))
	}
	tests := []struct {
		name string
		text string
	}{
		{"empty", ""},
		{"not JSON", "serials"},
		{"truncated", `{"version": 1, "keys": {"` + keyA + `": 5`},
		{"wrong version", `{"version": 2, "keys": {}}`},
		{"no version", `{"keys": {"` + keyA + `": 5}}`},
		{"unknown field", `{"version": 1, "keys": {}, "reset": true}`},
		{"bad key id", `{"version": 1, "keys": {"nope": 5}}`},
		{"zero serial", `{"version": 1, "keys": {"` + keyA + `": 0}}`},
		{"fractional serial", `{"version": 1, "keys": {"` + keyA + `": 1.5}}`},
		{"text after", `{"version": 1, "keys": {}}}`},
		{"too many keys", `{"version": 1, "keys": {` + strings.Join(many, ", ") + `}}`},
		{"too large", `{"version": 1, "keys": {}}` + strings.Repeat(" ", maxSerialFile)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "policy-serials.json")
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			s := NewSerialStore(path)
			if err := s.Check(keyA, 1); !errors.Is(err, ErrStoreCorrupt) {
				t.Errorf("Check: %v, want ErrStoreCorrupt", err)
			}
			if err := s.Accept(keyA, 100); !errors.Is(err, ErrStoreCorrupt) {
				t.Errorf("Accept: %v, want ErrStoreCorrupt", err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.text {
				t.Errorf("the corrupt store was rewritten: %q", got)
			}
		})
	}
}

func TestSerialStoreBounded(t *testing.T) {
	s := NewSerialStore(filepath.Join(t.TempDir(), "policy-serials.json"))
	for i := range maxSerialKeys {
		if err := s.Accept(fmt.Sprintf("%016x", i), 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Accept(keyB, 1); err == nil {
		t.Fatal("the store took one key more than its bound")
	}
	// The keys it holds still count up.
	if err := s.Accept(fmt.Sprintf("%016x", 3), 2); err != nil {
		t.Fatal(err)
	}
}

func TestSerialStoreConcurrentAccepts(t *testing.T) {
	s := NewSerialStore(filepath.Join(t.TempDir(), "policy-serials.json"))
	var wg sync.WaitGroup
	for i := 1; i <= 20; i++ {
		wg.Go(func() {
			// Older ones may be refused once a newer one is in; that is the point.
			if err := s.Accept(keyA, int64(i)); err != nil && !errors.Is(err, ErrRollback) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n, _, err := s.Highest(keyA); n != 20 || err != nil {
		t.Fatalf("Highest = %d, %v; want 20", n, err)
	}
}

func TestVerifyManaged(t *testing.T) {
	priv, pub := testKey(t, 1)
	_, otherPub := testKey(t, 2)
	sign := func(text string) []byte {
		doc, err := Sign([]byte(text), priv)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	v3 := sign(testPolicy)
	v2 := sign(strings.Replace(testPolicy, "serial: 3", "serial: 2", 1))
	v4 := sign(strings.Replace(testPolicy, "serial: 3", "serial: 4", 1))
	noSerial := sign(strings.Replace(testPolicy, "serial: 3\n", "", 1))
	badSerial := sign(strings.Replace(testPolicy, "serial: 3", "serial: three", 1))
	type step struct {
		doc  []byte
		pub  PublicKey
		want error // nil: accepted
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"valid, then again", []step{{v3, pub, nil}, {v3, pub, nil}}},
		{"newer", []step{{v3, pub, nil}, {v4, pub, nil}}},
		{"rollback", []step{{v3, pub, nil}, {v2, pub, ErrRollback}}},
		{"rollback after a newer", []step{{v4, pub, nil}, {v3, pub, ErrRollback}}},
		{"tampered", []step{{[]byte(strings.Replace(string(v3), "deny}", "allow}", 1)), pub, ErrBadSignature}}},
		{"wrong key", []step{{v3, otherPub, ErrWrongKey}}},
		{"missing signature", []step{{[]byte(testPolicy), pub, ErrUnsigned}}},
		{"missing serial", []step{{noSerial, pub, ErrNoSerial}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewSerialStore(filepath.Join(t.TempDir(), "policy-serials.json"))
			for i, st := range tt.steps {
				payload, _, err := VerifyManaged("/etc/moat/managed.yaml", st.doc, st.pub, store)
				if st.want == nil && err != nil || !errors.Is(err, st.want) {
					t.Fatalf("step %d: error = %v, want %v", i, err, st.want)
				}
				if err != nil && payload != nil {
					t.Fatalf("step %d: a payload with an error", i)
				}
				if err != nil && !strings.HasPrefix(err.Error(), "managed policy /etc/moat/managed.yaml: ") {
					t.Fatalf("step %d: error %q does not name the file", i, err)
				}
			}
		})
	}
	store := NewSerialStore(filepath.Join(t.TempDir(), "policy-serials.json"))
	if _, _, err := VerifyManaged("m.yaml", badSerial, pub, store); err == nil || !strings.Contains(err.Error(), "m.yaml:2:9: serial must be a positive whole number") {
		t.Fatalf("bad serial: %v, want a file:line error", err)
	}
	if _, ok, _ := store.Highest(pub.KeyID()); ok {
		t.Fatal("a refused policy's serial was recorded")
	}
}
