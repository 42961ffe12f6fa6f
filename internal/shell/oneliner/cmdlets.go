package oneliner

import (
	"regexp"
	"sync"
)

// PowerShell's commands and .NET calls, as data (see powershell.go).

// psKind is what a cmdlet does.
type psKind uint8

const (
	psRemove   psKind = iota + 1 // deletes its -Path (recursively with -Recurse)
	psWrite                      // writes its -Path / -FilePath
	psNewItem                    // creates its -Path (a file, a directory or a link)
	psCopy                       // reads its -Path, writes its -Destination
	psMove                       // deletes its -Path, writes its -Destination
	psRename                     // deletes its -Path, writes -NewName beside it
	psRead                       // reads its -Path; env: is the environment
	psList                       // lists its -Path; env: is the environment
	psEval                       // runs a string as PowerShell code
	psStart                      // starts a program
	psWeb                        // a web request
	psBlock                      // runs its script blocks (read in place)
	psHarmless                   // prints, formats, navigates
	psDiskWipe                   // formats or wipes a disk, a volume or a partition
)

// cmdlets maps each cmdlet and alias, in lower case, to what it does.
var cmdlets = sync.OnceValue(func() map[string]psKind {
	m := map[string]psKind{}
	add := func(k psKind, names ...string) {
		for _, n := range names {
			m[n] = k
		}
	}
	// PowerShell 6 and later define no alias that shadows a Unix program on Linux and
	// macOS (rm, ls, cp, mv, cat, curl, …): those names run the programs, which the
	// shell analysis judges, so they are not listed.
	add(psRemove, "remove-item", "del", "erase", "rd", "ri")
	add(psWrite, "set-content", "sc", "add-content", "out-file", "clear-content", "clc", "tee-object", "export-csv", "export-clixml")
	add(psNewItem, "new-item", "ni", "md")
	add(psCopy, "copy-item", "copy", "cpi")
	add(psMove, "move-item", "move", "mi")
	add(psRename, "rename-item", "ren", "rni")
	add(psRead, "get-content", "gc", "type", "import-csv")
	add(psList, "get-childitem", "gci", "dir")
	add(psEval, "invoke-expression", "iex")
	add(psStart, "start-process", "saps")
	add(psWeb, "invoke-webrequest", "iwr", "invoke-restmethod", "irm", "start-bitstransfer")
	// Format-Volume's verb is format, which is otherwise Format-Table's: read-only.
	add(psDiskWipe, "format-volume", "clear-disk", "initialize-disk", "remove-partition", "clear-partition")
	add(psBlock, "foreach-object", "%", "where-object", "?", "invoke-command", "icm", "start-job")
	add(psHarmless, "write-host", "write-output", "echo", "write", "write-verbose", "write-warning", "write-error", "out-host", "out-null",
		"out-string", "select-object", "select", "sort-object", "measure-object", "measure", "format-table", "ft", "format-list", "fl",
		"set-location", "cd", "sl", "chdir", "push-location", "pushd", "pop-location", "popd", "get-location", "gl", "exit", "return",
		"clear-host", "cls", "clear", "test-path", "resolve-path", "split-path", "join-path", "get-date", "get-command", "gcm", "get-help",
		"get-process", "gps", "get-item", "gi", "get-member", "gm", "convertto-json", "convertfrom-json", "get-filehash", "start-sleep")
	return m
})

// readOnlyVerbs are the approved PowerShell verbs that only read or display: a cmdlet of
// one of them that the table does not list is still harmless.
var readOnlyVerbs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"get": true, "test": true, "show": true, "find": true, "search": true, "measure": true, "compare": true, "format": true,
		"select": true, "sort": true, "group": true, "convertto": true, "convertfrom": true, "resolve": true, "split": true, "join": true,
		"write": true, "out": true, "read": true, "trace": true, "watch": true, "wait": true,
	}
})

// psSwitches are the parameters that take no value.
var psSwitches = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"recurse": true, "r": true, "force": true, "f": true, "confirm": true, "whatif": true, "nonewline": true, "passthru": true,
		"append": true, "noclobber": true, "usebasicparsing": true, "wait": true, "nonewwindow": true, "asjob": true, "container": true,
		"verbose": true, "debug": true,
	}
})

// psKeywords start statements that are expressions or control flow, read for their .NET calls.
var psKeywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"if": true, "else": true, "elseif": true, "foreach": true, "for": true, "while": true, "do": true, "until": true, "switch": true,
		"param": true, "function": true, "filter": true, "try": true, "catch": true, "finally": true, "trap": true, "throw": true, "break": true, "continue": true,
	}
})

// dotnetCall is a .NET method PowerShell code calls.
type dotnetCall struct {
	re      *regexp.Regexp // the call, ending at its "("
	op      fileOp         // its file accesses (argument indexes)
	exec    bool           // starts a process: its arguments are a command line
	code    bool           // runs its first argument as PowerShell code
	network bool
	envDump bool // returns every environment variable
}

var dotnetCalls = sync.OnceValue(func() []dotnetCall {
	re := func(s string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + s) }
	return []dotnetCall{
		{re: re(`\[(?:System\.)?IO\.File\]::(?:WriteAllText|WriteAllBytes|WriteAllLines|AppendAllText|AppendAllLines|Create|CreateText|OpenWrite|AppendText|SetAttributes)\s*\(`), op: fileOp{writes: []int{0}}},
		{re: re(`\[(?:System\.)?IO\.File\]::(?:Copy)\s*\(`), op: fileOp{writes: []int{1}}},
		{re: re(`\[(?:System\.)?IO\.File\]::(?:Move|Replace)\s*\(`), op: fileOp{deletes: []int{0}, writes: []int{1}}},
		{re: re(`\[(?:System\.)?IO\.File\]::(?:Delete)\s*\(`), op: fileOp{deletes: []int{0}}},
		{re: re(`\[(?:System\.)?IO\.File\]::CreateSymbolicLink\s*\(`), op: fileOp{writes: []int{0}}},
		{re: re(`\[(?:System\.)?IO\.Directory\]::Delete\s*\(`), op: fileOp{deletes: []int{0}, recursive: true}},
		{re: re(`\[(?:System\.)?IO\.Directory\]::Move\s*\(`), op: fileOp{deletes: []int{0}, writes: []int{1}}},
		{re: re(`\[(?:System\.)?Diagnostics\.Process\]::Start\s*\(`), exec: true},
		{re: re(`\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\s*\(|\.InvokeScript\s*\(|\$ExecutionContext\.InvokeCommand\.\w+\s*\(`), code: true},
		{re: re(`\bNet\.Sockets\.TcpClient\b|\bNet\.WebClient\b|\[(?:System\.)?Net\.Http`), network: true},
		{re: re(`\[(?:System\.)?Environment\]::GetEnvironmentVariables\s*\(`), envDump: true},
	}
})
