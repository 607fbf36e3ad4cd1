from printcloud.core.process.lifecycle import run_in_process_loop
from printcloud.virtual_fleet import app

run_in_process_loop(app.main())
