import Glibc
import PrefsCommand

exit(CommandLineTool.start())
