//! The winit side of the viewer: connecting to the windowing system,
//! opening the window and queueing its events for the frame loop to pump.

use std::sync::Arc;
use std::time::{Duration, Instant};

use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::platform::pump_events::{EventLoopExtPumpEvents, PumpStatus};
use winit::window::{Window, WindowId};

use crate::error::ViewerError;
use crate::ViewerOptions;

/// The winit side: creates the window when the loop resumes and queues events.
pub struct Shell {
    attrs: winit::window::WindowAttributes,
    window: Option<Arc<Window>>,
    error: Option<String>,
    pub(crate) events: Vec<WindowEvent>,
    pub(crate) exit: bool,
}

impl ApplicationHandler for Shell {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_none() {
            match event_loop.create_window(self.attrs.clone()) {
                Ok(w) => self.window = Some(Arc::new(w)),
                Err(e) => self.error = Some(e.to_string()),
            }
        }
    }

    fn window_event(&mut self, _: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        self.events.push(event);
    }
}

impl Shell {
    /// Connects to the windowing system and opens the window.
    pub fn open(opts: &ViewerOptions) -> Result<(EventLoop<()>, Shell, Arc<Window>), ViewerError> {
        let mut event_loop = EventLoop::new().map_err(|e| {
            ViewerError::Window(format!("{e} (is DISPLAY or WAYLAND_DISPLAY set?)"))
        })?;
        let attrs = Window::default_attributes()
            .with_title(format!("sward: {}", opts.preset))
            .with_inner_size(winit::dpi::PhysicalSize::new(opts.size[0], opts.size[1]));
        let mut shell = Shell {
            attrs,
            window: None,
            error: None,
            events: Vec::new(),
            exit: false,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while shell.window.is_none() && shell.error.is_none() && Instant::now() < deadline {
            if let PumpStatus::Exit(code) =
                event_loop.pump_app_events(Some(Duration::from_millis(10)), &mut shell)
            {
                return Err(ViewerError::Window(format!("event loop exited ({code})")));
            }
        }
        if let Some(e) = shell.error.take() {
            return Err(ViewerError::Window(e));
        }
        let window = shell
            .window
            .clone()
            .ok_or_else(|| ViewerError::Window("no window after 10 s".into()))?;
        Ok((event_loop, shell, window))
    }
}
