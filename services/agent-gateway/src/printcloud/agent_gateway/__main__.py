from printcloud.agent_gateway import app
from printcloud.core.process.lifecycle import run_in_process_loop

run_in_process_loop(app.main())
