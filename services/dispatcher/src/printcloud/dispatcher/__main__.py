from printcloud.core.process.lifecycle import run_in_process_loop
from printcloud.dispatcher.app import main

run_in_process_loop(main())
