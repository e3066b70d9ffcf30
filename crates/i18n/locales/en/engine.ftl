## Warden: risk sentences and the reasons of an evaluation.
## Ids are kebab-case and start with the file's name; arguments are named ($tool, $path).
## Never translate what machines match: option ids, tool names, commands, paths, _meta keys.
## $decision is allow, ask or deny; $risk and $hint are low, medium, high or critical;
## $op is read, write or delete; $critical is yes or no.

# Words the catalog does not hold yet (the shell analyser's reasons), shown as written.
engine-verbatim = { $text }
engine-list = { $list }; { $item }

## What a call does.

engine-call-read = Read file at { $path }
engine-call-list = List folder { $path }
engine-call-search = Search for `{ $pattern }` in { $path }
engine-call-write = Write { $bytes ->
        [one] 1 byte
       *[other] { $bytes } bytes
    } to { $path }
engine-call-edit = Edit { $path }: replace { $old ->
        [one] 1 byte
       *[other] { $old } bytes
    } with { $new ->
        [one] 1 byte
       *[other] { $new } bytes
    }
engine-call-delete = Delete { $path }
engine-call-delete-recursive = Delete { $path } and everything in it
engine-call-move = Move { $from } to { $to }
engine-call-fetch = Fetch { $url }
engine-call-send = Send { $method } request to { $url }
engine-call-mcp = Call tool `{ $tool }` of MCP server `{ $server }`
engine-call-tool = Call tool `{ $tool }`
engine-call-command = Execute command: { $command }
engine-call-command-in = Execute command in { $dir }: { $command }
engine-call-malformed = Malformed call to `{ $tool }`: { $problem }.

## Why a call has its risk.

engine-path-sensitive = { $op ->
        [read] Reads
        [delete] Deletes
       *[write] Writes
    } { $path }, which is { $what }.
engine-path-inside = { $op ->
        [read] Reads
        [delete] Deletes
       *[write] Writes
    } { $path } inside the workspace.
engine-path-outside = { $op ->
        [read] Reads
        [delete] Deletes
       *[write] Writes
    } { $path }, outside the workspace.
engine-sensitive-ssh-dir = inside an SSH folder (keys and SSH configuration)
engine-sensitive-cloud-credentials = a cloud or registry credentials file
engine-sensitive-gnupg = inside the GnuPG keyring folder
engine-sensitive-env-file = an environment file that usually holds secrets
engine-sensitive-private-key = a private key
engine-sensitive-system-secret = a system account or secrets file
engine-sensitive-shell-rc = a shell start-up file whose code runs in every new shell
engine-sensitive-warden-project = the project's Warden policy folder
engine-sensitive-git-internals = inside Git's internal folder (hooks, config)
engine-sensitive-warden-state = Warden's own configuration or state
engine-sensitive-device = a device file
engine-sensitive-exec-config = a file that makes programs run code later (configuration, start-up or autostart)
engine-search-holds-sensitive = Searches { $path }, a folder that holds something that is { $what }.
engine-delete-root-folder = deleting { $path } recursively would remove a root folder
engine-move-creates-sensitive = Creates { $path }, a folder that holds something that is { $what }.
engine-move-removes-sensitive = Moves away { $path }, a folder that holds something that is { $what }.
engine-http-risk = a web request can send data out and bring untrusted content in
engine-mcp-risk = an MCP server's tool can do anything its server can
engine-unknown-tool-risk = Warden does not know what this tool does
engine-mcp-destructive = its server says the tool is destructive
engine-mcp-read-only-trusted = its server, whose annotations your policy trusts, says the tool only reads
engine-mcp-read-only = its server says the tool only reads (not verified)
engine-mcp-sensitive-path = an argument names a sensitive path: { $reason }
engine-command-unreadable = { $problem }
engine-command-not-by-parts = the command as a whole cannot be judged part by part
engine-command-runs-in = it runs in { $dir }: { $reason }
engine-cannot-run = The call cannot run as given: { $problem }.
engine-risk-and-sandbox = { $reason }; { $need }

## The shell analyser.

engine-runs = Runs { $program }.
engine-runs-git = Runs git { $sub }.
engine-runs-script = Runs a script that { $reason }
engine-sets-variables = Sets variables only.
engine-sets-command = Sets { $name }, a command that programs run later.
engine-sets-dynamic-command = Sets { $name }, a command Warden cannot read, only known at run time.
engine-calls-function = Calls { $name }, a function this command defines, whose body is judged with these arguments.
engine-calls-function-unfollowed = Calls { $name }, a function this command defines, with arguments Warden does not follow into its body here.
engine-opaque = { $reason } Warden cannot see what it runs, so it never runs unasked.
engine-not-modelled = Uses { $construct }: Warden does not model it, so the command is not low-risk.
engine-cannot-read-command = The command cannot be fully read: { $problem }.
engine-empty-command = The command is empty.
engine-as-sh-reads = As sh reads it (without bash): { $reason }
engine-as-lines-joined = As every backslash-newline joins lines: { $reason }

## The shell's file commands.

engine-precious-root = the whole file system
engine-precious-home = the home folder
engine-precious-workspace = the workspace root
engine-precious-holder = a folder that holds the home folder or the workspace
engine-precious-warden = a folder that holds Warden's own files
engine-precious-system = a top-level system folder
engine-runs-reader = Runs { $program }, which only reads.
engine-reads-secret-below = Runs { $program } over every file below { $folder }, hidden and ignored ones included, so it reads { $secret }, which holds secrets.
engine-reads-home-below = Reads everything below { $path }, the secrets in the home folder included.
engine-deletes-nothing = Runs { $program } without operands, which deletes nothing.
engine-no-preserve-root = Deletes with --no-preserve-root, which allows deleting the whole file system.
engine-deletes-dynamic = Recursively deletes { $path }, a path only known at run time.
engine-deletes-precious = Recursively deletes { $path }, { $what }.
engine-deletes-outside = Recursively deletes { $path }, outside the workspace.
engine-no-operands = Runs { $program } without operands.
engine-moves-nothing = Moves nothing.
engine-copies-nothing = Copies nothing.
engine-moves-precious = Moves { $path }, { $what }.
engine-links-nothing = Creates no link.
engine-no-files = Runs { $program } without files.
engine-permissions-precious = Recursively changes the permissions of { $path }, which holds the system or the home folder (or is unknown).
engine-runs-dd = Runs dd, which copies raw data to its output.
engine-deletes-below-dynamic = Deletes files below { $path }, a path only known at run time.
engine-deletes-below = Deletes files below { $path }, recursively.
engine-runs-find = Runs find, which only reads.
engine-find-exec = find runs { $program } on each file it finds: { $reason }

## Processes, services, the network and package managers.

engine-kill-all = Signals every process of the user (kill -1).
engine-kill = Runs { $program }, which stops processes.
engine-systemctl-power = Runs systemctl to stop or restart the machine.
engine-systemctl-read = Runs systemctl to look at services.
engine-systemctl-change = Runs systemctl { $verb }, which changes services.
engine-network = Runs { $program }, which talks to the network.
engine-network-exec = Runs { $program } with a program connected to the network, which runs whatever the other end sends.
engine-package-host = Runs { $program } with { $flag }, which contacts a registry or index the command names and can send data to it.
engine-package-script = Runs { $program } to set a package script, which later commands run; the script is judged on its own.
engine-package-runner = Runs { $program }, which downloads and runs packages.
engine-tool-reads = Runs { $program } { $sub }, which only reads.
engine-package-install = Runs { $program } { $sub }, which changes installed software.
engine-tool-outside-code = Runs { $program } { $sub }, which installs, publishes or runs code from outside the project.
engine-build-tool = Runs { $program } { $sub }, a build or test tool that runs the project's own code.
engine-sync-delete = Runs { $program } --delete into { $path }, which deletes whatever the source lacks there.
engine-container = Runs { $program }, which runs an image's code.
engine-container-host = Runs { $program } with { $option }, which gives the container the host machine.
engine-container-mount = Runs { $program } with { $path } of the host mounted, which gives the container the files that run the machine.

## The shell's judges of programs.

engine-asks-version-or-help = Asks { $program } for its version or help.
engine-option-another-program-or = Runs { $program } with an option that runs another program or reads a file Warden does not check.
engine-way-sets-later-commands = Runs { $program } in a way that sets what later commands run or runs code in arithmetic.
engine-command-known-at-run = Runs { $at } with a command only known at run time.
engine-whose-command-judged-own = Runs { $at }, whose command is judged on its own.
engine-program-warden-does-not = Runs { $program }, a program Warden does not know.
engine-executes-commands-administrator-rights = Runs { $program }, which executes commands with administrator rights.
engine-stops-machine = Runs { $program }, which stops the machine.
engine-changes-run-level = Runs { $program }, which changes the run level.
engine-rewrites-disks-or-file = Runs { $program }, which rewrites disks or file systems.
engine-alone-starts-nothing = Runs { $program } alone, which starts nothing.
engine-make-text-from-command = Runs { $program } with make text from the command line (--eval), which can run any command.
engine-script-from-file-warden = Runs { $program } with a script from a file Warden does not read.
engine-schedules-commands-run-later = Runs { $program }, which schedules commands that run later.
engine-changes-nothing = Runs { $program }, which changes nothing.
engine-build-or-test-tool = Runs { $program }, a build or test tool that runs the project's own code.
engine-reports-would-change = Runs { $tool }, which only reports what it would change.
engine-script-whose-command-judged = Runs script, whose command is judged on its own.
engine-script-records-session-file = Runs script, which records the session to a file; its command is judged on its own.
engine-sets-system-clock = Sets the system clock.
engine-changes-machines-host-name = Changes the machine's host name.
engine-mounts-file-system = Mounts a file system.
engine-yq-i-rewrites-files = Runs yq -i, which rewrites the files it is given.
engine-asks-rustc-knows-version = Asks rustc what it knows (version, targets, settings).

## Interpreters, archives and build tools.

engine-exec-program-c-script-whose = Runs { $program } -c with a script whose parts are judged on their own.
engine-exec-program-script-downloaded-from = Runs { $program } on a script downloaded from the network.
engine-exec-program-c-script-downloaded = Runs { $program } -c on a script downloaded from the network.
engine-exec-program-c-without-script = Runs { $program } -c without a script.
engine-exec-program-script-holds-data = Runs { $program } on a script that holds data downloaded from the network.
engine-exec-pipes-download-into-program = Pipes a download into { $program }, which runs whatever the server sends.
engine-exec-program-script-whose-parts = Runs { $program } on a script whose parts are judged on their own.
engine-exec-program-script-made-at = Runs { $program } on a script made at run time, which Warden cannot see.
engine-exec-program-script-read-from = Runs { $program } on a script read from another command's output.
engine-exec-program-heredocument = Runs { $program } on a here-document.
engine-exec-starts-program-whatever-given = Starts { $program }, which runs whatever it is given.
engine-exec-program-code-downloaded-from = Runs { $program } on code downloaded from the network.
engine-exec-asks-program-version = Asks { $program } for its version.
engine-exec-program-m-module-build = Runs { $program } -m { $module }, a build or test tool.
engine-exec-python-module-module = Runs the Python module { $module }.
engine-exec-program-i-rewrites-files = Runs { $program } -i, which rewrites files in place with code Warden does not analyse.
engine-exec-program-inline-code-warden = Runs { $program } with inline code that Warden does not analyse.
engine-exec-program-program-whose-code = Runs a { $program } program whose code Warden does not analyse.
engine-exec-program-lists-defines = Runs { $program }, which only lists or defines.
engine-exec-defines-program-command-known = Defines with { $program } a command only known at run time.
engine-exec-busybox-applet = Runs a busybox applet.
engine-exec-busybox-lists-applets = Runs busybox, which lists its applets.
engine-exec-formats-json = Formats JSON.
engine-exec-evaluates-code-downloaded-from = Evaluates code downloaded from the network.
engine-exec-evaluates-script-known-at = Evaluates a script only known at run time.
engine-exec-evaluates-script-whose-parts = Evaluates a script whose parts are judged on their own.
engine-exec-sources-code-downloaded-from = Sources code downloaded from the network.
engine-exec-sed-whose-scripts-write = Runs sed, whose scripts can write files and run commands.
engine-exec-sed-script-prints-substitutes = Runs sed with a script that only prints, substitutes or deletes lines.
engine-exec-sed-script-commands-writes = Runs sed with a script that runs commands or writes files.
engine-exec-awk-program-prints = Runs awk with a program that only prints.
engine-exec-awk-program-from-file = Runs an awk program from a file Warden does not read.
engine-exec-awk-program-run-commands = Runs an awk program that can run commands or write files.
engine-exec-awk-programming-language = Runs awk, a programming language.
engine-unpack-program-editor-whose-commands = Runs { $program }, an editor whose commands Warden does not read (they can run programs).
engine-unpack-tar-create-change-archive = Runs tar to create or change an archive.
engine-unpack-tar-list-archive = Runs tar to list an archive.
engine-unpack-tar = Runs tar.
engine-unpack-patch-changes-files-patches = Runs patch, which changes the files it patches.
engine-build-cargo-configuration-known-at = Runs cargo with configuration only known at run time.

## The shell walker: functions, variables, downloads, sockets.

engine-walk-functions-defines-function-name-calls = Defines the function { $name }, which calls itself: a fork bomb that can bring the machine down.
engine-walk-uses-construct-warden-does = Uses { $construct }: Warden does not model it, so the command is not low-risk.
engine-walk-written-program-outside-standard = Runs { $written }, a program outside the standard system folders.
engine-walk-sets-name-command-warden = Sets { $name }, a command Warden cannot read, only known at run time.
engine-walk-program-contacts-network-command = Runs { $program }, which contacts the network, in a command that also reads secrets: it could send them out.
engine-walk-connects-name-network-socket = Connects { $name } to a network socket, so it runs whatever the other end sends.
engine-walk-written-this-command-downloaded = Runs { $written }, which this command downloaded from the network.
engine-walk-name-file-this-command = Runs { $name } on { $file }, which this command downloaded from the network.
engine-walk-name-projects-files-after = Runs { $name }, which runs the project's files, after this command downloaded files into its folder.
engine-walk-env-s-command-known = Runs env -S with a command only known at run time.
engine-walk-env-s-whose-command = Runs env -S, whose command is judged on its own.
engine-walk-opens-network-connection-through = Opens a network connection through a /dev/tcp or /dev/udp redirection.
engine-walk-sends-data-network-through = Sends data to the network through a /dev/tcp or /dev/udp redirection.
engine-walk-sets-git-configuration-known = Sets git configuration only known at run time.
engine-env-sets-name-changes-where = Sets { $name }, which changes where programs find their configuration, libraries or tools, or how the shell reads commands.
engine-env-sets-name-variable-warden = Sets { $name }, a variable Warden does not know, for the program it runs.
engine-walk-functions-cycle = Defines the functions { $names }, which call each other and start processes: a fork bomb that can bring the machine down.

## Secrets printed, redirections, loops, and git's settings.

engine-prints-variable = Runs printenv { $name }, which prints environment variables that may hold secrets.
engine-prints-declared = Runs { $program } -p { $name }, which prints environment variables that may hold secrets.
engine-prints-environment = Runs { $program } alone, which prints environment variables that may hold secrets (the whole environment).
engine-prints-expansion = Expands { $expanded } in an argument of { $program }, which prints environment variables that may hold secrets.
engine-runs-shellcheck = Runs shellcheck, which only reads the scripts it checks.
engine-nested-too-deeply = Runs a script nested too deeply to analyse.
engine-redirects = Redirects output.
engine-redirects-dynamic = Redirects to { $path }, a file only known at run time.
engine-process-flood = Starts processes in the background in a loop that may never end: a process flood that can bring the machine down.
engine-awk-library = Runs awk with a library or program file that can rewrite files or run code.
engine-git-dynamic-configuration = Runs git with configuration only known at run time.
engine-git-config-env-command = Runs git with the setting { $key } taken from an environment variable, a command Warden cannot read.
engine-git-config-env-moves = Runs git with the setting { $key } taken from an environment variable, which moves where git reads configuration or programs.
engine-git-exec-path = Runs git with its programs taken from { $path }, which can run any program.
engine-git-other-repository = Runs git on another repository or work tree.
engine-git-clone-dynamic-configuration = Clones with configuration only known at run time.
engine-git-clone-template = Clones with a template folder, whose hooks git copies into the repository and runs.
engine-git-ext-transport = Uses git's ext:: transport, which runs the command { $command }.

## Wrappers.

engine-wrapper-systemd-run = Runs a command with systemd-run, as a service that can outlive the command.
engine-wrapper-nsenter = Runs a command inside another process's namespaces.
engine-wrapper-administrator = Runs a command with administrator rights.
engine-wrapper-chroot = Runs a command with another root folder.

## Scripts, values and files only known at run time.

engine-prints-heredoc = Expands { $name } in a here-document or here-string, which prints environment variables that may hold secrets.
engine-xargs = Runs { $program } through xargs, with arguments only known at run time.
engine-unknown-many-arguments = Runs { $program }, a program Warden does not know, with more than { $count } arguments, not all of which were read as a command it may run.
engine-unknown-dynamic-argument = Runs { $program }, a program Warden does not know, with { $word } only known at run time, which may be a program it runs.
engine-exec-dynamic-script = Runs { $program } -c with a script only known at run time ({ $script }).
engine-exec-script-file = Runs { $program } on the script { $script }, whose content Warden does not read.
engine-exec-sourced-file = Runs the script { $script } in this shell, whose content Warden does not read.
engine-git-other-repository-outside = Runs git on the repository or work tree { $path }, outside the workspace, whose configuration can make git run programs.
engine-git-transport = Uses the git transport { $transport }::, which runs the program git-remote-{ $transport }.
engine-git-named-host = Runs git { $sub } against { $url }, a host the command names, which sends data over the network.
engine-unpack-into-home = Extracts an archive into { $path }, so files Warden cannot see may replace the home folder's start-up files and settings.
engine-build-make-variable = Runs { $program } with the variable { $name } set to { $value }, which its recipes may run as a command.
engine-build-cargo-program = Runs cargo with { $key }, a program it runs in place of its own tools.
engine-build-cargo-config-file = Runs cargo with the configuration file { $path }, which can name programs cargo runs.
engine-walk-dynamic-program = The program to run, { $program }, is only known at run time.
engine-walk-unpinned-value = Gives { $name } { $word }, a value only known at run time, which may be an option or a path Warden did not judge.
engine-walk-build-files-written = Runs { $name }, which runs the project's build files, after this command wrote { $file }, code Warden does not read.

## Paths known at run time, and git settings however given.

engine-path-dynamic = { $op ->
        [read] Reads
        [delete] Deletes
       *[write] Writes
    } { $path }, a path only known at run time.
engine-git-hooks-off = { $how ->
        [run] Runs git with
        [clone] Clones with
       *[set] Sets
    } core.hooksPath to nothing, which turns the repository's hooks off.
engine-git-hooks-path = { $how ->
        [run] Runs git with
        [clone] Clones with
       *[set] Sets
    } core.hooksPath to { $value }, so git runs the programs there as hooks on commit, merge, checkout and push.
engine-git-option-transport = { $how ->
        [run] Runs git with
        [clone] Clones with
       *[set] Sets
    } the git option { $key } to a URL with the transport { $transport }::, which runs a program when git uses it.
engine-git-option-command = { $how ->
        [run] Runs git with
        [clone] Clones with
       *[set] Sets
    } the git option { $key }, whose command is judged on its own.
engine-git-option-moves = { $how ->
        [run] Runs git with
        [clone] Clones with
       *[set] Sets
    } the git option { $key }, which moves where git reads configuration, hooks or repositories.

## git.

engine-git-catfile-batch-prints-objects = Runs git cat-file --batch, which prints the objects named on its input, which Warden cannot see.
engine-git-forcedeletes-branch-lose-commits = Force-deletes a git branch, which can lose commits.
engine-git-lists-branches = Lists git branches.
engine-git-creates-renames-or-deletes = Creates, renames or deletes a git branch.
engine-git-lists-tags = Lists git tags.
engine-git-creates-or-deletes-tag = Creates or deletes a git tag.
engine-git-lists-remotes = Lists git remotes.
engine-git-changes-remotes = Changes git remotes.
engine-git-lists-stashes = Lists git stashes.
engine-git-drops-stashes-loses-their = Drops git stashes, which loses their changes.
engine-git-stashes-or-restores-changes = Stashes or restores changes.
engine-git-lists-worktrees = Lists git worktrees.
engine-git-changes-worktrees = Changes git worktrees.
engine-git-lists-submodules = Lists git submodules.
engine-git-changes-submodules = Changes git submodules.
engine-git-shows-reflog = Shows the git reflog.
engine-git-changes-reflog-lose-history = Changes the git reflog, which can lose history.
engine-git-commits-without-running-repositorys = Commits without running the repository's hooks.
engine-git-reset-hard-discards-uncommitted = Runs git reset --hard, which discards uncommitted changes.
engine-git-reset-moves-branch = Runs git reset, which moves the branch.
engine-git-clean-as-dry-run = Runs git clean as a dry run.
engine-git-clean-deletes-untracked-files = Runs git clean, which deletes untracked files for good.
engine-git-removes-files-from-index = Removes files from the git index.
engine-git-deletes-tracked-files-rm = Deletes tracked files with git rm.
engine-git-forcepushes-overwrite-others-history = Force-pushes with git, which can overwrite others' history on the remote.
engine-git-deletes-branch-remote = Deletes a branch on the git remote.
engine-git-push-as-dry-run = Runs git push as a dry run.
engine-git-pushes-commits-remote-publishes = Pushes commits to a git remote, which publishes them.
engine-git-clones-repository-from-network = Clones a git repository from the network.
engine-git-opens-configuration-an-editor = Opens git configuration in an editor, the program git is set to run.
engine-git-reads-configuration = Reads git configuration.
engine-git-removes-configuration = Removes git configuration.
engine-git-changes-users-or-systems = Changes the user's or the system's git configuration.
engine-git-changes-repositorys-configuration = Changes the repository's git configuration.
engine-git-unknown-option = Runs git with the option { $option }, which Warden does not know.
engine-git-version = Asks git for its version or help.
engine-git-no-subcommand = Runs git without a subcommand, which prints its help.
engine-git-dynamic-subcommand = Runs git with a subcommand only known at run time ({ $sub }).
engine-git-writing-option = Runs git { $sub } with an option that writes a file or runs a program.
engine-git-reads = Runs git { $sub }, which only reads.
engine-git-discards = Runs git { $sub } in a way that discards uncommitted changes.
engine-git-changes = Runs git { $sub }, which changes the repository.
engine-git-rewrites = Runs git { $sub }, which rewrites repository history or references.
engine-git-unknown-subcommand = Runs git { $sub }, a subcommand (or alias) Warden does not know.
engine-git-sets-relocating-option = Sets the git option { $option }, which makes git run a program or read configuration from elsewhere later.

## What decided, and why.

engine-by-rule = { $decision ->
        [allow] Allowed
        [ask] Needs approval
       *[deny] Denied
    } by rule `{ $rule }` in { $file }
engine-by-rule-because = { $decision ->
        [allow] Allowed
        [ask] Needs approval
       *[deny] Denied
    } by rule `{ $rule }` in { $file }: { $reason }
engine-by-grant = { $decision ->
        [allow] Allowed
       *[deny] Denied
    } by grant { $grant } ({ $subject })
engine-mode-cannot-ask = { $why }; mode `{ $mode }` cannot ask, so it is denied
engine-builtin-fs-read = reading files inside the workspace is safe
engine-builtin-fs-write = writing files changes the workspace
engine-builtin-terminal = shell commands can do anything the user can
engine-builtin-http = web requests can send data out and bring untrusted content in
engine-auto-approved = `{ $tool }` is on auto_approved_tools
engine-by-mode = Mode `{ $mode }` { $decision ->
        [allow] allows
        [ask] asks
       *[deny] denies
    } { $risk }-risk calls{ $critical ->
        [yes] {" "}(nothing allows a Critical call)
       *[no] {""}
    }
engine-builtin-rule = { $rule }; this is what mode `ask` does with { $risk }-risk calls{ $critical ->
        [yes] {" "}(nothing allows a Critical call)
       *[no] {""}
    }
engine-model-hint = The model rated the call { $hint }; with model_risk_hints = { $policy } the risk is { $risk }, and mode `{ $mode }` { $decision ->
        [allow] allows
        [ask] asks
       *[deny] denies
    } { $risk }-risk calls{ $critical ->
        [yes] {" "}(nothing allows a Critical call)
       *[no] {""}
    }
engine-policy-error = The policy file { $file } cannot be used ({ $error }), so calls that would be allowed { $decision ->
        [ask] ask
       *[deny] are denied
    } instead
engine-no-parts = The call has no part that can be judged
engine-deciding-part = Part `{ $part }`: { $explanation }
engine-as-unrated = { $explanation } (the decision the call gets without the model's rating, at { $risk } risk: a rating never loosens a decision)
engine-as-on-its-own = { $explanation } (the decision the part gets on its own, at { $risk } risk: what raises a part's risk never loosens its decision)
engine-as-partly-raised = { $explanation } (the decision the part gets at { $risk } risk, as only some of what raised it would leave it: what raises a part's risk never loosens its decision)
engine-but-sandbox = { $explanation }, but { $why }
engine-explanation = { $text }.
engine-exact-call = { $reason } (the user allowed this exact call for the session)

## The sandbox.

engine-sandbox-off = runs WITHOUT the sandbox
engine-sandbox-unavailable = runs without a sandbox: { $why }
engine-sandbox-network = needs the network
engine-sandbox-writes = writes outside the workspace: { $paths }
engine-widening-network = with the network
engine-widening-writes = with writes to { $paths }
engine-widening-network-and-writes = with the network and writes to { $paths }
engine-asks-sandbox-off = the call asks to run WITHOUT the sandbox, which only the user can allow, each time
engine-asks-no-sandbox = this system cannot confine commands ({ $why }), so every command is asked
engine-asks-beyond-grant = the call needs more than its sandbox gives ({ $needs }), beyond what grant { $grant } was approved with
engine-asks-beyond-mode = the call needs more than its sandbox gives ({ $needs }), which the mode alone never allows

## What a user's hook said about a call (`[[hook]]`).
engine-hook-said-why = Your hook `{ $command }` said { $decision }: { $reason }. (Before it: { $before })
engine-hook-said = Your hook `{ $command }` said { $decision }. (Before it: { $before })
engine-hook-failed = Your hook `{ $command }` said { $decision } by failing ({ $problem }). (Before it: { $before })

## Shell constructs Warden does not model, as they read inside "Uses …".
engine-construct-arithmetic-expansion = arithmetic expansion $((…)) of values Warden does not know, which evaluates array subscripts as code
engine-construct-arithmetic-for = an arithmetic for loop over values Warden does not know, which evaluates code
engine-construct-array-subscript = an array subscript, which bash evaluates as arithmetic
engine-construct-array-assignment = an array assignment
engine-construct-arithmetic-command = an arithmetic command ((…)) of values Warden does not know, which evaluates code
engine-construct-parameter-operator = a parameter expansion with an operator (${"{"}x:-y{"}"}, ${"{"}!x{"}"}, ${"{"}x@P{"}"}, …), whose value Warden does not evaluate
engine-construct-test-arithmetic = a [[ ]] test with arithmetic or -v, which bash evaluates as code
engine-construct-declaration-options = a declaration with options Warden does not model (-i integers, -n references, -t traces, typed assignments)
engine-construct-unknown = a shell construct Warden does not model
engine-construct-let = let over values Warden does not know, which evaluates array subscripts as code
engine-construct-coproc-builtin = coproc
engine-construct-directory-stack = the directory stack with options (pushd -n, popd +N, dirs …)
engine-construct-shopt = shopt, which changes how bash reads commands (aliases, globs, ...)
engine-construct-set-options = set options Warden does not model (set -k, set -T, ...)
engine-construct-hash = hash, which changes which file a program name runs
engine-construct-read-into = read into an array element or a name only known at run time, which bash evaluates as code
engine-construct-printf-v = printf -v into an array element or a name only known at run time, which bash evaluates as code
engine-construct-test-v = test -v, which evaluates array subscripts as code
engine-construct-history = history options, which read or write files
engine-construct-umask = umask, which changes the permissions of later files
engine-construct-builtin = a bash builtin Warden does not model
engine-construct-coproc = coproc, which runs a command beside the shell with pipes Warden does not follow
engine-construct-function-like-program = a function named like a program, which runs instead of it
