import Foundation
import Lector

FileHandle.standardError.write(Data("lector: the client is not part of this build yet\n".utf8))
exit(2)
