//go:build !race

package hookrelay

const raceEnabled = false
