//go:build race

package shell

// raceSlowdown scales time limits: the race detector makes the analyser several times slower.
const raceSlowdown = 10
