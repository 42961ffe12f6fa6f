package policy

import (
	"strings"
	"testing"
)

// serialCases are documents with the serial Load and Serial must both read from them, or
// the error both must report.
var serialCases = []struct {
	name    string
	src     string
	want    int64
	present bool
	err     string // "" when the document is valid
}{
	{name: "none", src: "version: 1\n"},
	{name: "one", src: "version: 1\nserial: 1\n", want: 1, present: true},
	{name: "large", src: "version: 1\nserial: 9007199254740993\n", want: 9007199254740993, present: true},
	{name: "hex, as YAML reads it", src: "version: 1\nserial: 0x10\n", want: 16, present: true},
	{name: "zero", src: "version: 1\nserial: 0\n", err: "p.yaml:2:9: serial must be a positive whole number (1, 2, …), not the number 0"},
	{name: "negative", src: "version: 1\nserial: -3\n", err: "p.yaml:2:9: serial must be a positive whole number"},
	{name: "quoted", src: "version: 1\nserial: \"5\"\n", err: `p.yaml:2:9: serial must be a positive whole number (1, 2, …), not the string "5"`},
	{name: "fraction", src: "version: 1\nserial: 1.5\n", err: "not the number 1.5"},
	{name: "too large", src: "version: 1\nserial: 99999999999999999999\n", err: "p.yaml:2:9: serial must be a positive whole number"},
	{name: "a list", src: "version: 1\nserial: [2]\n", err: "not a list"},
	{name: "twice", src: "version: 1\nserial: 9\nserial: 1\n", err: `p.yaml:3:1: duplicate key "serial"`},
	{name: "nested is not the serial", src: "version: 1\nsandbox:\n  serial: 3\n", err: "unknown key"},
	{name: "two documents", src: "version: 1\nserial: 2\n---\nserial: 9\n", err: "one YAML document"},
}

func TestSerial(t *testing.T) {
	for _, tt := range serialCases {
		t.Run(tt.name, func(t *testing.T) {
			got, present, err := Serial("p.yaml", []byte(tt.src))
			p, loadErr := Load("p.yaml", []byte(tt.src), testHost())
			if tt.err != "" {
				if loadErr == nil || !strings.Contains(loadErr.Error(), tt.err) {
					t.Errorf("Load error = %v, want one containing %q", loadErr, tt.err)
				}
				// Serial reads only the top-level key: a nested one is no serial.
				if tt.name == "nested is not the serial" {
					if err != nil || present {
						t.Errorf("Serial = %d, %v, %v; want no serial", got, present, err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Serial error = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || loadErr != nil {
				t.Fatalf("Serial error = %v, Load error = %v", err, loadErr)
			}
			if got != tt.want || present != tt.present {
				t.Errorf("Serial = %d, %v; want %d, %v", got, present, tt.want, tt.present)
			}
			if p.Serial != tt.want {
				t.Errorf("Load: Serial = %d, want %d", p.Serial, tt.want)
			}
		})
	}
}
