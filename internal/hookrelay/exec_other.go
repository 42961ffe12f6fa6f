//go:build !unix

package hookrelay

// execMoat runs moat as a child: there is no exec here.
func execMoat(path string, args []string, payload []byte) error {
	return runMoat(path, args, payload)
}
