from printcloud.agent_gateway import app
from printcloud.core.service import run_in_process_loop

run_in_process_loop(app.main())
