import Foundation
import LectorClient

exit(LectorCommand.main(Array(CommandLine.arguments.dropFirst())))
