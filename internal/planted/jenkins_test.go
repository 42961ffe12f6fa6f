package planted

import (
	"strings"
	"testing"
)

func TestExtractJenkinsAndClaude(t *testing.T) {
	for _, tt := range []struct {
		name, path, text string
		want             []string // the code found, in order; "opaque" for code moat cannot read
	}{
		{"jenkins sh steps", "Jenkinsfile", `pipeline {
  stages {
    stage('b') {
      steps {
        sh 'make test'
        sh "docker push ${env.IMAGE}:$TAG \$HOME"
        sh(script: '''./deploy.sh
  --prod''', returnStdout: true)
        sh label: 'lint', script: "golangci-lint run"
        bash 'not a step'
      }
    }
  }
}
`, []string{"make test", "docker push ${GROOVY_EXPRESSION}:${GROOVY_EXPRESSION} $HOME", "./deploy.sh\n  --prod", "golangci-lint run"}},
		{"jenkins step not written out", "Jenkinsfile", "node { sh(script: cmd) }", []string{"opaque"}},
		{"jenkins variable named sh", "Jenkinsfile", "def shell = 'x'\ndef sh2 = 1\n", nil},
		// A script held in a variable is a step moat cannot read (it had passed unread).
		{"jenkins step given a variable", "Jenkinsfile", "node {\n  sh cmd\n}\n", []string{"opaque"}},
		{"jenkins step given a field", "Jenkinsfile", "steps { sh env.DEPLOY_SCRIPT; }", []string{"opaque"}},
		{"jenkins comment naming sh", "Jenkinsfile", "// we run sh later\nnode { sh 'make' }\n", []string{"make"}},
		{"jenkins string that never ends", "Jenkinsfile", "sh 'make\nsh 'rm -rf ~'\n", []string{"opaque"}},
		// Read once: a text of many steps whose strings never end stops at the first.
		{"jenkins many unterminated steps", "Jenkinsfile", strings.Repeat("sh 'x\n", 20000), []string{"opaque"}},
		{"claude command bang spans", ".claude/commands/deploy.md", "---\nallowed-tools: Bash(git:*)\n---\nStatus: !`git status`\nRun `make` yourself.\n", []string{"git status"}},
		{"claude hook script", ".claude/hooks/check.sh", "#!/bin/sh\njq .tool_input\n", []string{"#!/bin/sh\njq .tool_input\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkExtract(t, tt.path, tt.text, tt.want)
		})
	}
}
