import Foundation
import Lector

exit(LectorClient.main(Array(CommandLine.arguments.dropFirst())))
