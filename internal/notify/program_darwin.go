package notify

// program runs AppleScript, whose display notification is the system's own.
const program = "osascript"

// args pass the text as arguments of the script's run handler rather than inside the
// script, so that no text can be read as AppleScript.
func args(title, body string) []string {
	return []string{
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run",
		title, body,
	}
}
