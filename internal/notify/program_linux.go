package notify

// program is the freedesktop notification client of most Linux desktops (libnotify).
const program = "notify-send"

// args are notify-send's arguments: "--" first, so that no text can be read as an
// option.
func args(title, body string) []string {
	return []string{"--app-name=moat", "--", title, body}
}
